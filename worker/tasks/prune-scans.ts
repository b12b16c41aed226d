import { sql } from 'kysely';
import { z } from 'zod';
import { defineTask } from '../task.ts';

// Cron (daily): scans carry their artifacts (tens of KB each) and monitoring adds one per site per
// period, so old ones are deleted. Monitoring history keeps its own scores (monitor_scans.scan_id
// is set null). Deleted in batches so one run never holds a long lock.
const BATCH = 1000;

export default defineTask({
  name: 'prune_scans',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, config, log, signal }) {
    let deleted = 0;
    for (;;) {
      if (signal.aborted) break;
      const r = await sql`
        delete from scans where id in (
          select id from scans
           where created_at < now() - make_interval(days => ${config.SCAN_RETENTION_DAYS})
             and status in ('done', 'failed')
           limit ${BATCH})`.execute(db);
      const n = Number(r.numAffectedRows ?? 0);
      deleted += n;
      if (n < BATCH) break;
    }
    log.info({ deleted, retentionDays: config.SCAN_RETENTION_DAYS }, 'pruned old scans');
  },
});
