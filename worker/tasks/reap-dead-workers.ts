import { z } from 'zod';
import { settleStaleDeliveries } from '../../shared/webhooks/deliver.ts';
import { reapDeadWorkers } from '../heartbeat.ts';
import { defineTask } from '../task.ts';

// Cron (every minute): free the jobs of workers that died without releasing them, and settle the
// webhook attempts such a worker left pending (outcome unknown; never sent again).
export default defineTask({
  name: 'reap_dead_workers',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, log }) {
    const freed = await reapDeadWorkers(db);
    if (freed.length) log.warn({ workers: freed }, 'released jobs of dead workers');
    const settled = await settleStaleDeliveries(db);
    if (settled) log.warn({ settled }, 'settled webhook attempts left pending by a dead worker');
  },
});
