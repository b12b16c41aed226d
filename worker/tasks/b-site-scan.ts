import { bSiteScanJob } from '../../shared/b-sites/schedule.ts';
import { registeredSiteWatch } from '../../shared/b-sites/watch-kind.ts';
import { scanSlot } from '../../shared/watch/scan-slot.ts';
import { defineTask } from '../task.ts';

// One weekly scan of one registered B site (enqueued by b_sites_fanout, job key per site), with
// its threshold alerts.
export default defineTask({
  ...bSiteScanJob,
  // A bound above the scan's own deadline (SCAN_FULL_DEADLINE_MS), for the recording and sending.
  timeoutMs: 6 * 60_000,
  async run({ siteId, dueAt }, ctx) {
    await scanSlot(ctx, registeredSiteWatch, { siteId, dueAt: new Date(dueAt) });
  },
});
