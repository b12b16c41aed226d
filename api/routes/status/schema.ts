import { z } from 'zod';

export const StatusResponse = z.object({
  status: z.enum(['operational', 'degraded']).describe('operational when healthy'),
  version: z.string().describe('API version'),
  docs: z.string().url().describe('URL of the developer documentation'),
});
