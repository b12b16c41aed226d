import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';

// Scans carry their artifacts (tens of KB each) and monitoring adds one per site per period, so
// finished ones older than the retention are deleted. Monitoring history keeps its own scores
// (monitor_scans.scan_id is set null). Deleted in batches so one run never holds a long lock.
const BATCH = 1000;

export async function pruneScans(
  db: Kysely<Database>,
  retentionDays: number,
  signal?: AbortSignal,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    if (signal?.aborted) break;
    const r = await sql`
      delete from scans where id in (
        select id from scans
         where created_at < now() - make_interval(days => ${retentionDays})
           and status in ('done', 'failed')
         limit ${BATCH})`.execute(db);
    const n = Number(r.numAffectedRows ?? 0);
    deleted += n;
    if (n < BATCH) break;
  }
  return deleted;
}
