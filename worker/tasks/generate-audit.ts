import { generateAuditJob } from '../../shared/audits/jobs.ts';
import { generateAuditOrder } from '../../shared/audits/order-job.ts';
import { defineTask } from '../task.ts';

// One audit order, start to finish (shared/audits/order-job.ts).
export default defineTask({
  ...generateAuditJob,
  timeoutMs: 15 * 60_000,
  async run({ orderId }, ctx) {
    await generateAuditOrder(ctx, orderId, {
      attempts: ctx.helpers.job.attempts,
      maxAttempts: ctx.helpers.job.max_attempts,
    });
  },
});
