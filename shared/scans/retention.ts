import type { Kysely } from 'kysely';
import { deleteOlderThan } from '../db/batches.ts';
import type { Database } from '../db/database.ts';

// Scans carry their artifacts (tens of KB each) and monitoring adds one per site per period, so
// rows older than the retention are deleted: finished ones, and queued or running ones too, which
// at that age are stranded (a scan's deadline is minutes and its job's attempts end within the
// hour). Monitoring history keeps its own scores (monitor_scans.scan_id is set null). Deleted in
// batches so one run never holds a long lock.
export function pruneScans(
  db: Kysely<Database>,
  retentionDays: number,
  signal?: AbortSignal,
): Promise<number> {
  return deleteOlderThan(db, { table: 'scans', column: 'created_at', days: retentionDays }, { signal });
}
