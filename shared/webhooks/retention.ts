import type { Kysely } from 'kysely';
import { deleteOlderThan } from '../db/batches.ts';
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
  return deleteOlderThan(
    db,
    { table: 'webhook_deliveries', column: 'created_at', days },
    { size: opts.batch, signal: opts.signal },
  );
}
