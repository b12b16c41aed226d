import { monitorScanJob } from '../../shared/monitoring/jobs.ts';
import { monitoredSiteWatch } from '../../shared/monitoring/watch-kind.ts';
import { scanSlot } from '../../shared/watch/scan-slot.ts';
import { defineTask } from '../task.ts';

// One scheduled scan of one monitored site (enqueued by monitor_fanout, job key per site).
export default defineTask({
  ...monitorScanJob,
  // A bound above the scan's own deadline (SCAN_FULL_DEADLINE_MS), for the recording and sending.
  timeoutMs: 6 * 60_000,
  async run({ siteId, dueAt }, ctx) {
    await scanSlot(ctx, monitoredSiteWatch, { siteId, dueAt: new Date(dueAt) });
  },
});
