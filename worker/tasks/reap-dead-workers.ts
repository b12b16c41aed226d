import { z } from 'zod';
import { reapDeadWorkers } from '../heartbeat.ts';
import { defineTask } from '../task.ts';

// Cron (every minute): free the jobs of workers that died without releasing them.
export default defineTask({
  name: 'reap_dead_workers',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, log }) {
    const freed = await reapDeadWorkers(db);
    if (freed.length) log.warn({ workers: freed }, 'released jobs of dead workers');
  },
});
