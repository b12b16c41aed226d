import { z } from 'zod';

export const BundleParams = z.object({
  bundle: z
    .string()
    .regex(/^[a-z_]{1,80}$/)
    .describe(
      'A bundle id, as in a recommendation: complete_audit_bundle or focus_bundle_<three dimensions>',
    ),
});
