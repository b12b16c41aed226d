import { z } from 'zod';
import { foldAllPending } from '../../shared/agent-traffic/page-rollups.ts';
import { defineTask } from '../task.ts';

// Cron (every 10 minutes): page counts that ingestion left pending (sql/018) are folded into the
// page and path rollups, so a site that went quiet leaves none behind.
export default defineTask({
  name: 'fold_agent_pages',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, note }) {
    note?.(await foldAllPending(db)); // on the job's one log line
  },
});
