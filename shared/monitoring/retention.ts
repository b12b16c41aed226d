import { type Kysely, sql } from 'kysely';
import { deleteOlderThan } from '../db/batches.ts';
import type { Database } from '../db/database.ts';

/**
 * Deletes monitoring alerts raised more than `days` ago (MONITOR_ALERT_RETENTION_DAYS), run daily
 * by the prune_retention task. The status page and the monitoring list show only recent alerts.
 */
export async function pruneMonitorAlerts(
  db: Kysely<Database>,
  days: number,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  return deleteOlderThan(
    db,
    { table: 'monitor_alerts', column: 'created_at', days },
    { size: opts.batch, signal: opts.signal },
  );
}

/**
 * Deletes monitoring scans recorded more than `days` ago (WATCH_HISTORY_RETENTION_DAYS), with
 * their alerts, run daily by the prune_retention task. Each site's latest scan is kept whatever
 * its age: the next scan of a paused or long-down site still has one to compare with.
 */
export async function pruneMonitorScans(
  db: Kysely<Database>,
  days: number,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  return deleteOlderThan(
    db,
    {
      table: 'monitor_scans',
      column: 'scanned_at',
      days,
      also: sql`exists (select 1 from monitor_scans n
                         where n.site_id = monitor_scans.site_id
                           and (n.scanned_at, n.id) > (monitor_scans.scanned_at, monitor_scans.id))`,
    },
    { size: opts.batch, signal: opts.signal },
  );
}
