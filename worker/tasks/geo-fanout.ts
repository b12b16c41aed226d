import { availableProviders } from '../../shared/geo/answer-engines/index.ts';
import { GEO_FANOUT_TASK, GeoFanoutPayload } from '../../shared/geo/jobs.ts';
import { fanOutGeoRuns } from '../../shared/geo/schedule.ts';
import { defineTask } from '../task.ts';

// Cron (every five minutes, worker/crontab): a visibility run for every Growth/Agency own site
// with prompts, for the most recent Sunday 04:00 UTC. Runs are unique per site and Sunday, so a
// repeated tick adds nothing, and a tick after a missed 04:00 one catches up (shared/geo/schedule.ts).
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
