import { z } from 'zod';

export const AccountResponse = z
  .object({
    id: z.number().int(),
    email: z.string(),
    variant: z.enum(['A', 'B']),
    tier: z.enum(['free', 'pro', 'agent', 'intelligence', 'optimisation']).describe('Current API tier'),
    plan: z.enum(['growth', 'agency']).nullable().describe('Active monitoring plan (variant A), or null'),
    betaFlags: z.record(z.string(), z.boolean()),
    notificationPreferences: z.record(z.string(), z.unknown()),
    createdAt: z.string().describe('ISO 8601'),
  })
  .meta({ id: 'Account' });
