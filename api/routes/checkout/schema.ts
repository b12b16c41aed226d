import { z } from 'zod';

export const BundleParams = z.object({
  bundle: z
    .string()
    .regex(/^[a-z_]{1,80}$/)
    .describe(
      'A bundle id, as in a recommendation: complete_audit_bundle or focus_bundle_<three dimensions>',
    ),
});

export const BundleQuery = z.object({
  target_url: z.string().max(2048).optional().describe('The site to audit (the scanned URL)'),
});

export const PlanParams = z.object({
  plan: z.enum(['growth', 'agency']).describe('The monitoring plan'),
});

export const PlanQuery = z.object({
  email: z.string().max(254).optional().describe('The buyer’s email, prefilled at Stripe'),
});
