import { z } from 'zod';
import { fanOutDueSites } from '../../shared/monitoring/fanout.ts';
import { defineTask } from '../task.ts';

// Cron (every minute): enqueue a monitor_scan job for every site that is due. No ?fill= in the
// crontab: due-ness lives in the rows, so the first run after downtime finds every overdue site
// and runs each once, where backfilled ticks would find nothing more to do. A run cut short by
// its deadline or a shutdown leaves the rest due for the next tick.
export default defineTask({
  name: 'monitor_fanout',
  payload: z.object({}).passthrough(),
  timeoutMs: 5 * 60_000,
  async run(_payload, { db, config, note, signal }) {
    const r = await fanOutDueSites(db, { batch: config.MONITOR_FANOUT_BATCH, signal });
    note?.({ ...r });
  },
});
