import { z } from 'zod';
import { monitorSite } from '../../shared/monitoring/scan-site.ts';
import { defineTask } from '../task.ts';

// One scheduled scan of one monitored site (enqueued by monitor_fanout, job key per site).
export default defineTask({
  name: 'monitor_scan',
  payload: z.object({
    siteId: z.string().regex(/^\d+$/),
    dueAt: z.number().int().nonnegative().describe('The schedule slot served, epoch ms'),
  }),
  // A bound above the scan's own deadline (SCAN_FULL_DEADLINE_MS), for the recording and sending.
  timeoutMs: 6 * 60_000,
  async run({ siteId, dueAt }, { db, config, log, signal, browser }) {
    await monitorSite({ db, config, log, signal, browser }, { siteId, dueAt: new Date(dueAt) });
  },
});
