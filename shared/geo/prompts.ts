import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { GeoPrompt } from '../db/tables/geo.ts';
import { AppError, notFound, quotaExceeded, subscriptionRequired } from '../errors.ts';
import { requireGeoPlan } from './access.ts';

// Canonical prompts of an account: the questions every visibility and share-of-voice run asks.
// The plan's prompt quota (Growth 10, Agency 20) is checked under a lock on the subscription row,
// so concurrent adds cannot overshoot it.

export async function listPrompts(db: Kysely<Database>, accountId: string) {
  const sub = await requireGeoPlan(db, accountId);
  const prompts = await db
    .selectFrom('geo_prompts')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return { prompts, quota: sub.prompt_quota, plan: sub.plan };
}

export async function addPrompt(
  db: Kysely<Database>,
  accountId: string,
  input: { prompt: string; label: string },
): Promise<GeoPrompt> {
  await requireGeoPlan(db, accountId);
  return db.transaction().execute(async (trx) => {
    const sub = await trx
      .selectFrom('subscriptions')
      .select(['plan', 'prompt_quota'])
      .where('account_id', '=', accountId)
      .where('status', '=', 'active')
      .forUpdate()
      .executeTakeFirst();
    if (!sub) throw subscriptionRequired('The Growth or Agency plan is no longer active.');
    const { used } = await trx
      .selectFrom('geo_prompts')
      .select((eb) => eb.fn.countAll<number>().as('used'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (Number(used) >= sub.prompt_quota) {
      throw quotaExceeded(
        `The ${sub.plan} plan keeps up to ${sub.prompt_quota} canonical prompts and all ${sub.prompt_quota} are in use. Delete one first${sub.plan === 'growth' ? ', or move to the Agency plan (20 prompts)' : ''}.`,
      );
    }
    const row = await trx
      .insertInto('geo_prompts')
      .values({ account_id: accountId, prompt: input.prompt, label: input.label })
      .onConflict((oc) => oc.columns(['account_id', 'prompt']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row)
      throw new AppError(409, 'prompt_exists', 'Prompt exists', 'This account already has that prompt.');
    return row;
  });
}

export async function removePrompt(db: Kysely<Database>, accountId: string, id: number): Promise<void> {
  await requireGeoPlan(db, accountId);
  const r = await db
    .deleteFrom('geo_prompts')
    .where('id', '=', String(id))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw notFound(`No prompt ${id} on this account.`);
}

export async function accountPrompts(db: Kysely<Database>, accountId: string): Promise<GeoPrompt[]> {
  return db.selectFrom('geo_prompts').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}
