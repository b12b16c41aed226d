import { executeScan } from '../../shared/scans/execute.ts';
import { scanUrlJob } from '../../shared/scans/jobs.ts';
import { defineTask } from '../task.ts';

// Gathers and scores one scan row (shared/scans/execute.ts).
export default defineTask({
  ...scanUrlJob,
  async run({ scanId }, ctx) {
    await executeScan(ctx, scanId);
  },
});
