import { z } from 'zod';
import { pruneAgentEvents } from '../../shared/agent-traffic/retention.ts';
import { defineTask } from '../task.ts';

// Cron (daily): raw agent events past AGENT_EVENTS_RETENTION_DAYS go (whole month partitions are
// dropped); rollups stay, so statistics over old windows keep working.
export default defineTask({
  name: 'prune_agent_events',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, config, note }) {
    const r = await pruneAgentEvents(db, config.AGENT_EVENTS_RETENTION_DAYS);
    note?.({ ...r, retentionDays: config.AGENT_EVENTS_RETENTION_DAYS }); // on the job's one log line
  },
});
