import { z } from 'zod';
import { pruneHits } from '../../shared/accounts/rate-limit.ts';
import { defineTask } from '../task.ts';

// Cron (hourly): rate-limit bookkeeping older than the window is never read again.
export default defineTask({
  name: 'prune_rate_limits',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, note }) {
    const deleted = await pruneHits(db);
    note?.({ deleted });
  },
});
