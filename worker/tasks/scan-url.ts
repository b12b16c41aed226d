import { scanUrlJob } from '../../shared/scans/jobs.ts';
import { executeScan } from '../../shared/scans/scan-job.ts';
import { defineTask } from '../task.ts';

// Gathers and scores one scan row (shared/scans/scan-job.ts).
export default defineTask({
  ...scanUrlJob,
  async run({ scanId }, ctx) {
    await executeScan(ctx, scanId);
  },
});
