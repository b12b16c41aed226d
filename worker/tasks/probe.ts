import { z } from 'zod';
import { notify } from '../../shared/jobs/events.ts';
import { defineTask } from '../task.ts';

// A no-op job that signals when it starts: used by the benchmark (add->start latency) and by the
// tests of the completion helper. Harmless to run in production.
export default defineTask({
  name: 'probe',
  payload: z.object({ topic: z.string().min(1).max(200) }),
  async run(payload, { db }) {
    await notify(db, payload.topic);
  },
});
