import { z } from 'zod';
import { processVerifier } from '../../shared/agent-traffic/collect.ts';
import { VERIFY_TASK, verifyPendingVisits } from '../../shared/agent-traffic/verify-pending.ts';
import { defineTask } from '../task.ts';

// Queued by ingestion when it stores visits that need reverse DNS (`pending`), and every minute
// by the cron for the `unverified` ones whose retry is due: each distinct (agent, address) is
// looked up once, AGENT_VERIFY_CONCURRENCY at a time, and its events and rollups settled.
export default defineTask({
  name: VERIFY_TASK,
  payload: z.object({}).passthrough(),
  timeoutMs: 10 * 60_000,
  async run(_payload, { db, config, signal, note }) {
    const r = await verifyPendingVisits(db, processVerifier(config), {
      concurrency: config.AGENT_VERIFY_CONCURRENCY,
      signal,
    });
    note?.({ pairs: r.pairs, lookedUp: r.lookedUp, moved: r.moved, ...r.verdicts });
  },
});
