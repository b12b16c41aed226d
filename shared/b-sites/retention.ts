import { type Kysely, sql } from 'kysely';
import { deleteOlderThan } from '../db/batches.ts';
import type { Database } from '../db/database.ts';

// Retention of registered B sites' scan records and threshold alerts, run daily by the
// prune_retention task with the monitoring windows (the scans themselves go with prune_scans).

/**
 * Deletes B site scan records older than `days` (WATCH_HISTORY_RETENTION_DAYS), with their alerts.
 * Each site's latest record is kept whatever its age: the next weekly scan compares with it.
 */
export async function pruneBSiteScans(
  db: Kysely<Database>,
  days: number,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  return deleteOlderThan(
    db,
    {
      table: 'b_site_scans',
      column: 'created_at',
      days,
      also: sql`exists (select 1 from b_site_scans n
                         where n.site_id = b_site_scans.site_id and n.id > b_site_scans.id)`,
    },
    { size: opts.batch, signal: opts.signal },
  );
}

/** Deletes B threshold alerts raised more than `days` ago (MONITOR_ALERT_RETENTION_DAYS). */
export async function pruneBSiteAlerts(
  db: Kysely<Database>,
  days: number,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  return deleteOlderThan(
    db,
    { table: 'b_site_alerts', column: 'created_at', days },
    { size: opts.batch, signal: opts.signal },
  );
}
