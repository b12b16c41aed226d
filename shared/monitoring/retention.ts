import type { Kysely } from 'kysely';
import { deleteOlderThan } from '../db/batches.ts';
import type { Database } from '../db/database.ts';

/**
 * Deletes monitoring alerts raised more than `days` ago (MONITOR_ALERT_RETENTION_DAYS), run daily
 * by the prune_retention task. The status page and the monitoring list show only recent alerts;
 * the scan history (monitor_scans) is kept.
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
