import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';
import type { Plan, Subscription } from '../db/tables/subscriptions.ts';
import { PERIOD_SECONDS } from '../monitoring/fanout.ts';
import { type AccountView, TIERS_BY_VARIANT, toAccountView } from './auth.ts';
import { generateKey } from './keys.ts';
import { newStatusToken } from './status-token.ts';

// Plans (decisions.md): growth weekly, 5 sites, 10 prompts; agency daily, 25 sites, 20 prompts.
export const PLANS: Record<
  Plan,
  { siteQuota: number; scanFrequency: 'daily' | 'weekly'; promptQuota: number; pricePence: number }
> = {
  growth: { siteQuota: 5, scanFrequency: 'weekly', promptQuota: 10, pricePence: 2900 },
  agency: { siteQuota: 25, scanFrequency: 'daily', promptQuota: 20, pricePence: 5900 },
};

export class AccountInputError extends Error {}

export async function createAccount(
  db: Kysely<Database>,
  input: { email: string; variant: Variant; tier: ApiTier; plan?: Plan | null; rateLimit?: number | null },
) {
  if (!TIERS_BY_VARIANT[input.variant].includes(input.tier)) {
    throw new AccountInputError(
      `tier ${input.tier} is not a variant ${input.variant} tier (${TIERS_BY_VARIANT[input.variant].join(', ')})`,
    );
  }
  if (input.plan && input.variant !== 'A')
    throw new AccountInputError('monitoring plans belong to variant A accounts');
  return db.transaction().execute(async (trx) => {
    const account = await trx
      .insertInto('accounts')
      .values({ email: input.email, variant: input.variant, tier: input.tier })
      .returningAll()
      .executeTakeFirstOrThrow();
    const statusToken = input.plan ? (await setSubscription(trx, account.id, input.plan)).statusToken : null;
    const key = await issueKey(trx, account.id, input.rateLimit ?? null);
    return { account, key, statusToken };
  });
}

export async function issueKey(db: Kysely<Database>, accountId: string, rateLimit: number | null = null) {
  const account = await db
    .selectFrom('accounts')
    .select(['id', 'variant', 'tier'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new AccountInputError(`no account ${accountId}`);
  const issued = generateKey(account.variant);
  const row = await db
    .insertInto('api_keys')
    .values({
      account_id: account.id,
      key_hash: issued.hash,
      display_prefix: issued.displayPrefix,
      variant: account.variant,
      tier: account.tier,
      rate_limit_per_hour: rateLimit,
    })
    .returning(['id', 'display_prefix', 'created_at'])
    .executeTakeFirstOrThrow();
  return { id: row.id, key: issued.key, displayPrefix: row.display_prefix, createdAt: row.created_at };
}

/** Revokes every live key with this display prefix (prefixes are what operators can see). */
export async function revokeKeys(db: Kysely<Database>, prefix: string): Promise<number> {
  const r = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`now()` })
    .where('display_prefix', '=', prefix)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** The account's active monitoring subscription, if it has one. */
export function activeSubscription(
  db: Kysely<Database>,
  accountId: string,
): Promise<Subscription | undefined> {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .executeTakeFirst();
}

/**
 * Sets (or with `none` cancels) the account's monitoring plan. A new subscription gets a status
 * token, returned here once (only its hash is stored); a plan change keeps the token, so shared
 * status links keep working, and returns null.
 */
export async function setSubscription(
  db: Kysely<Database>,
  accountId: string,
  plan: Plan | 'none',
): Promise<{ statusToken: string | null }> {
  if (plan === 'none') {
    await db
      .updateTable('subscriptions')
      .set({ status: 'canceled', updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .execute();
    return { statusToken: null };
  }
  const issued = newStatusToken();
  const p = PLANS[plan];
  const change = async (trx: Kysely<Database>) => {
    // The row lock orders concurrent plan changes, so each sees the frequency it replaces.
    const prior = await trx
      .selectFrom('subscriptions')
      .select('scan_frequency')
      .where('account_id', '=', accountId)
      .forUpdate()
      .executeTakeFirst();
    const row = await trx
      .insertInto('subscriptions')
      .values({
        account_id: accountId,
        plan,
        status: 'active',
        site_quota: p.siteQuota,
        scan_frequency: p.scanFrequency,
        prompt_quota: p.promptQuota,
        status_token_hash: issued.hash,
        status_token_prefix: issued.prefix,
      })
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({
          plan,
          status: 'active',
          site_quota: p.siteQuota,
          scan_frequency: p.scanFrequency,
          prompt_quota: p.promptQuota,
          updated_at: sql<Date>`now()`,
        }),
      )
      // xmax = 0 only on a freshly inserted row: the token just made is the one stored.
      .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
      .executeTakeFirstOrThrow();
    const period = PERIOD_SECONDS[p.scanFrequency];
    if (prior && period < PERIOD_SECONDS[prior.scan_frequency]) {
      // The fan-out only claims due rows, so sites would wait out their old (weekly) slot before
      // scans got more frequent. Each moves to its next slot on the new period at or after now
      // (monitor_next_due, as the fan-out: the site keeps its phase) when that is sooner. A
      // downgrade moves nothing: the current slot is at most a (shorter) old period away, and
      // the fan-out puts the site on the new period when it claims it.
      await trx
        .updateTable('monitored_sites')
        .set({
          next_scan_due_at: sql<Date>`least(next_scan_due_at,
            monitor_next_due(id, ${period}::bigint, now() - ${period / 2} * interval '1 second'))`,
        })
        .where('account_id', '=', accountId)
        .execute();
    }
    return { statusToken: row.inserted ? issued.token : null };
  };
  // createAccount calls this inside its own transaction.
  return db.isTransaction ? change(db) : db.transaction().execute(change);
}

/** Accounts joined with their active subscription, if any (its `plan` is null without one). */
export function accountsWithPlan(db: Kysely<Database>) {
  return db
    .selectFrom('accounts')
    .leftJoin('subscriptions', (j) =>
      j.onRef('subscriptions.account_id', '=', 'accounts.id').on('subscriptions.status', '=', 'active'),
    );
}

export async function getAccountView(
  db: Kysely<Database>,
  accountId: string,
): Promise<AccountView | undefined> {
  const row = await accountsWithPlan(db)
    .select([
      'accounts.id',
      'accounts.email',
      'accounts.variant',
      'accounts.tier',
      'accounts.beta_flags',
      'accounts.notification_preferences',
      'accounts.created_at',
      'subscriptions.plan',
    ])
    .where('accounts.id', '=', accountId)
    .executeTakeFirst();
  return row && toAccountView(row);
}
