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
  async run(_payload, { db, config, log, signal }) {
    const providers = availableProviders(config);
    if (providers.length === 0) return log.info('no answer engine configured; Sunday GEO runs skipped');
    const r = await fanOutGeoRuns(db, {
      batch: config.MONITOR_FANOUT_BATCH,
      providers,
      runsPerPrompt: config.GEO_RUNS_PER_PROMPT,
      signal,
    });
    if (r.scheduled > 0) log.info(r, 'geo visibility runs scheduled');
  },
});
