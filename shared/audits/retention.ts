import { type Kysely, sql } from 'kysely';
import { inBatches } from '../db/batches.ts';
import type { Database } from '../db/database.ts';

// An Idempotency-Key protects retries of one POST, not forever: after IDEMPOTENCY_KEY_TTL_HOURS
// the key is cleared from its order, so the client may use it again for a new order. placeOrder
// clears an expired key the moment it is reused (exact to the hour); the daily prune_retention
// task clears the rest.

/** Clears one account's key if it expired, so the caller's lookup no longer finds the old order. */
export async function expireIdempotencyKey(
  db: Kysely<Database>,
  accountId: string,
  key: string,
  ttlHours: number,
): Promise<void> {
  await db
    .updateTable('audit_orders')
    .set({ idempotency_key: null })
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .where('created_at', '<', sql<Date>`now() - make_interval(hours => ${ttlHours})`)
    .execute();
}

/** Clears every idempotency key older than `ttlHours`; returns how many orders it touched. */
export async function expireIdempotencyKeys(
  db: Kysely<Database>,
  ttlHours: number,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  return inBatches(
    async (size) => {
      const r = await sql`
        update audit_orders set idempotency_key = null where id in (
          select id from audit_orders
           where idempotency_key is not null
             and created_at < now() - make_interval(hours => ${ttlHours})
           limit ${size})`.execute(db);
      return Number(r.numAffectedRows ?? 0);
    },
    { size: opts.batch, signal: opts.signal },
  );
}
