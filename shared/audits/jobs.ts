import { z } from 'zod';
import { defineJob } from '../jobs/job.ts';

// The generate_audit job: one audit order, crawled, reported and delivered.
export const auditJobKey = (orderId: string) => `audit:${orderId}`;
export const generateAuditJob = defineJob('generate_audit', z.object({ orderId: z.string().min(1) }));
