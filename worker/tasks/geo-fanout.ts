import { GEO_FANOUT_TASK, GeoFanoutPayload } from '../../shared/geo/jobs.ts';
import { availableProviders } from '../../shared/geo/providers/index.ts';
import { fanOutGeoRuns } from '../../shared/geo/schedule.ts';
import { defineTask } from '../task.ts';

// Cron (Sundays, worker/crontab): a visibility run for every Growth/Agency own site with prompts.
// Runs are unique per site and Sunday, so a repeated or backfilled tick adds nothing.
export default defineTask({
  name: GEO_FANOUT_TASK,
  payload: GeoFanoutPayload,
  timeoutMs: 10 * 60_000,
  async run(_payload, { db, config, note, signal }) {
    const providers = availableProviders(config);
    // Findings go on the job's one log line (worker/task.ts), not lines of their own.
    if (providers.length === 0) return note?.({ skipped: 'no answer engine configured' });
    const r = await fanOutGeoRuns(db, {
      batch: config.MONITOR_FANOUT_BATCH,
      providers,
      runsPerPrompt: config.GEO_RUNS_PER_PROMPT,
      signal,
    });
    note?.({ ...r });
  },
});
