import { GEO_RUN_TASK, GeoRunPayload } from '../../shared/geo/jobs.ts';
import { executeRun } from '../../shared/geo/visibility-runs.ts';
import { defineTask } from '../task.ts';

// One visibility or share-of-voice run (rows written by the API or the Sunday fan-out). The run
// keeps its own deadline (GEO_RUN_DEADLINE_MS); this bound sits above it for the final write.
export default defineTask({
  name: GEO_RUN_TASK,
  payload: GeoRunPayload,
  timeoutMs: 2 * 60 * 60_000,
  async run({ runId }, { db, config, log, signal }) {
    await executeRun({ db, config, log, signal }, runId);
  },
});
