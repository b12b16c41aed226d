import { z } from 'zod';
import { fanOutBSites } from '../../shared/b-sites/schedule.ts';
import { defineTask } from '../task.ts';

// Cron (every minute): enqueue a b_site_scan job for every registered B site whose weekly slot
// (Monday 03:00 UTC) has come. No ?fill= in the crontab: due-ness lives in the rows, so the first
// run after downtime scans each overdue site once.
export default defineTask({
  name: 'b_sites_fanout',
  payload: z.object({}).passthrough(),
  timeoutMs: 5 * 60_000,
  async run(_payload, { db, config, note, signal }) {
    const r = await fanOutBSites(db, { batch: config.B_SITES_FANOUT_BATCH, signal });
    note?.({ ...r }); // on the job's one log line
  },
});
