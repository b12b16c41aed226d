import { type Kysely, sql } from 'kysely';
import { inBatches } from '../db/batches.ts';
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
  return inBatches(
    async (size) => {
      const r = await sql`
        delete from monitor_alerts where id in (
          select id from monitor_alerts
           where created_at < now() - make_interval(days => ${days})
           limit ${size})`.execute(db);
      return Number(r.numAffectedRows ?? 0);
    },
    { size: opts.batch, signal: opts.signal },
  );
}
