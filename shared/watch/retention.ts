import { type Kysely, type RawBuilder, sql } from 'kysely';
import { deleteOlderThan } from '../db/batches.ts';
import type { Database } from '../db/database.ts';

// Retention of the scheduled watch's records, run daily by the prune_retention task: alerts
// after MONITOR_ALERT_RETENTION_DAYS, scan history after WATCH_HISTORY_RETENTION_DAYS (with the
// alerts raised on it). Each site keeps its latest history row whatever its age, so the next scan
// of a paused or long-down site still has one to compare with. The scans themselves (artifacts,
// results) go with prune_scans.

type Window = 'alerts' | 'history';

interface Rule {
  window: Window;
  column: string;
  also?: RawBuilder<unknown>;
}

export const WATCH_RETENTION = {
  watch_alerts: { window: 'alerts', column: 'created_at' },
  // A later row of the same site exists: this one is not the site's latest.
  watch_scans: {
    window: 'history',
    column: 'scanned_at',
    also: sql`(exists (select 1 from watch_scans n where n.monitored_site_id = watch_scans.monitored_site_id
                  and (n.scanned_at, n.id) > (watch_scans.scanned_at, watch_scans.id))
            or exists (select 1 from watch_scans n where n.agent_site_id = watch_scans.agent_site_id
                  and (n.scanned_at, n.id) > (watch_scans.scanned_at, watch_scans.id)))`,
  },
} satisfies Record<string, Rule>;

export type WatchTable = keyof typeof WATCH_RETENTION;

/** Deletes the table's rows past `days`, in batches; says how many. */
export function pruneWatchTable(
  db: Kysely<Database>,
  table: WatchTable,
  days: number,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const rule: Rule = WATCH_RETENTION[table];
  return deleteOlderThan(
    db,
    { table, column: rule.column, days, also: rule.also },
    { size: opts.batch, signal: opts.signal },
  );
}

/** Every watch table with its window; the rows deleted per table. */
export async function pruneWatch(
  db: Kysely<Database>,
  days: Record<Window, number>,
  opts: { signal?: AbortSignal } = {},
): Promise<Record<WatchTable, number>> {
  const deleted = {} as Record<WatchTable, number>;
  for (const table of Object.keys(WATCH_RETENTION) as WatchTable[])
    deleted[table] = await pruneWatchTable(db, table, days[WATCH_RETENTION[table].window], opts);
  return deleted;
}
