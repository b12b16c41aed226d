import { z } from 'zod';
import { processVerifier } from '../../shared/agent-traffic/collect.ts';
import { RELABEL_TASK, relabelAgentEvents } from '../../shared/agent-traffic/relabel.ts';
import { defineTask } from '../task.ts';

// Queued when the catalogue changes (enqueueRelabel) or by `sightline agents relabel`: the
// retention window's events are labelled again with the catalogue in use. Progress is kept per
// (site, day), so a run cut short (deadline, shutdown, a dead worker) is resumed by the retry.
export default defineTask({
  name: RELABEL_TASK,
  payload: z.object({}).passthrough(),
  timeoutMs: 60 * 60_000,
  async run(_payload, { db, config, signal, log, note }) {
    let lastLogged = 0;
    const r = await relabelAgentEvents(db, {
      retentionDays: config.AGENT_EVENTS_RETENTION_DAYS,
      verifier: processVerifier(config),
      signal,
      onProgress(p) {
        if (Date.now() - lastLogged < 10_000) return;
        lastLogged = Date.now();
        log.info(
          { run: p.run, done: p.done, total: p.total, changed: p.changed },
          'relabelling agent events',
        );
      },
    });
    note?.({
      run: r.run,
      resumed: r.resumed,
      finished: r.finished,
      userAgents: r.userAgents,
      total: r.total,
      changed: r.changed,
    });
    // A run stopped by the signal has kept its place: failing the job makes graphile-worker retry it.
    if (!r.finished)
      throw new Error(`relabel run ${r.run} stopped at ${r.done} of ${r.total} events; it resumes on retry`);
  },
});
