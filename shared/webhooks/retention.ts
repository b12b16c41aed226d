import { type Kysely, sql } from 'kysely';
import { inBatches } from '../db/batches.ts';
import type { Database } from '../db/database.ts';

/**
 * Deletes webhook attempts recorded more than `days` ago (WEBHOOK_DELIVERY_RETENTION_DAYS), run
 * daily by the prune_retention task. A row's dedupe key stops a retried job sending twice; jobs
 * never retry anywhere near that long, so an old row guards nothing any more.
 */
export async function pruneWebhookDeliveries(
  db: Kysely<Database>,
  days: number,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  return inBatches(
    async (size) => {
      const r = await sql`
        delete from webhook_deliveries where id in (
          select id from webhook_deliveries
           where created_at < now() - make_interval(days => ${days})
           limit ${size})`.execute(db);
      return Number(r.numAffectedRows ?? 0);
    },
    { size: opts.batch, signal: opts.signal },
  );
}
