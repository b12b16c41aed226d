import { z } from 'zod';
import { defineJob, type JobSpec } from '../jobs/job.ts';

// A watch's slot job: one scheduled scan of one watched site for one schedule slot, run by
// scanSlot. Every kind of watched site has the same payload; the task name says which kind.
const slotPayload = z.object({
  siteId: z.string().regex(/^\d+$/),
  dueAt: z.number().int().nonnegative().describe('The schedule slot served, epoch ms'),
});

export const defineSlotJob = (name: string): JobSpec<typeof slotPayload> => defineJob(name, slotPayload);
