import { z } from 'zod';

// Agent traffic (B): camelCase resource fields and ISO 8601 timestamps like the B scan result;
// snake_case query fields.

const iso = z.string().describe('ISO 8601 timestamp');

export const RegisteredSite = z
  .object({
    id: z.number().int(),
    trackingId: z.string().describe('Public id that names the site in POST /api/v1/collect batches'),
    url: z.string(),
    domain: z.string(),
    label: z.string(),
    createdAt: iso,
    lastScanAt: iso
      .nullable()
      .describe('Newest finished agent-readability scan of the URL; null if never scanned'),
    overallScore: z.number().int().nullable().describe('Overall score of that scan'),
    grade: z.string().nullable(),
  })
  .meta({ id: 'RegisteredSite' });

export const RegisteredSiteList = z
  .object({ sites: z.array(RegisteredSite) })
  .meta({ id: 'RegisteredSiteList' });

export const SiteParams = z.object({
  id: z
    .string()
    .regex(/^(?:\d{1,18}|site_[0-9A-Za-z]{16})$/, 'a numeric site id or a site_ tracking id')
    .describe('Numeric site id or tracking id'),
});
