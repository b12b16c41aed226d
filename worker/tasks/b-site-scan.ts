import { z } from 'zod';
import { registeredSiteWatch } from '../../shared/b-sites/watch-kind.ts';
import { scanSlot } from '../../shared/watch/scan-slot.ts';
import { defineTask } from '../task.ts';

// One weekly scan of one registered B site (enqueued by b_sites_fanout, job key per site), with
// its threshold alerts.
export default defineTask({
  name: 'b_site_scan',
  payload: z.object({
    siteId: z.string().regex(/^\d+$/),
    dueAt: z.number().int().nonnegative().describe('The weekly slot served, epoch ms'),
  }),
  // A bound above the scan's own deadline (SCAN_FULL_DEADLINE_MS), for the recording and sending.
  timeoutMs: 6 * 60_000,
  async run({ siteId, dueAt }, ctx) {
    await scanSlot(ctx, registeredSiteWatch, { siteId, dueAt: new Date(dueAt) });
  },
});
