import { z } from 'zod';

// Field names and timestamps as interface.md and decisions.md give them: camelCase resource
// fields, snake_case request fields, epoch milliseconds for lastScannedAt / nextScanDueAt /
// scannedAt.

const score = z.number().int().min(0).max(100);
const epochMs = z.number().int().describe('Epoch milliseconds');

export const DimensionScores = z
  .object({
    seo: score,
    speed: score,
    copy: score,
    social: score,
    local: score,
    competitor: score
      .optional()
      .describe(
        "Standing against the account's competitors (100 = ahead of all); omitted when there are none",
      ),
    ai: score,
  })
  .meta({ id: 'MonitorDimensionScores' });

export const MonitoredSite = z
  .object({
    id: z.number().int(),
    url: z.string(),
    label: z.string(),
    status: z.enum(['active', 'paused']),
    siteType: z.enum(['own', 'competitor']),
    lastScannedAt: epochMs.nullable().describe('Epoch milliseconds; null until the first scan'),
    nextScanDueAt: epochMs,
    webhook_url: z.string().nullable().describe('Where alerts go (own sites); null for none'),
    alert_threshold: z.number().int().describe('Points of drop that trigger an alert'),
    indexnow_key: z
      .string()
      .nullable()
      .optional()
      .describe('The IndexNow key declared for this site; the geo-indexnow check verifies its key file'),
    indexnow_key_location: z
      .string()
      .nullable()
      .optional()
      .describe('Where the key file lives when not at /{key}.txt (same host)'),
    webhook_secret: z
      .string()
      .optional()
      .describe(
        'The account’s whsec_ secret that signs alert webhooks (Standard Webhooks); returned when a webhook_url is set',
      ),
  })
  .meta({ id: 'MonitoredSite' });

export const SubscriptionSummary = z
  .object({
    tier: z.enum(['growth', 'agency']),
    siteQuota: z.number().int(),
    status: z.enum(['active']),
    scanFrequency: z.enum(['daily', 'weekly']),
    sitesUsed: z.number().int().describe('Own sites and competitors, which share the quota'),
    statusPageUrl: z
      .null()
      .describe(
        'Always null here. The public status page ({site_url}/status/<token>, no login) is reached by a secret token that is stored hashed, like API keys: its URL is shown once, when the subscription is created and when the operator rotates it (`sightline subscriptions rotate-status-token --account ID`, which also ends the old link). Ask the operator for a new link if it is lost.',
      ),
    statusPageTokenPrefix: z
      .string()
      .describe(
        'The first 6 characters of the current status-page token: tells which status link is the live one',
      ),
  })
  .meta({ id: 'SubscriptionSummary' });

export const SiteList = z
  .object({ sites: z.array(MonitoredSite), subscription: SubscriptionSummary })
  .meta({ id: 'MonitoredSiteList' });

export const LatestMonitorScan = z
  .object({
    id: z.number().int(),
    siteId: z.number().int(),
    status: z.enum(['ok', 'down']).describe('down: the page could not be fetched (scores are then 0)'),
    overallScore: score,
    dimensionScores: DimensionScores,
    issues: z.array(z.string()),
    scannedAt: epochMs,
  })
  .meta({ id: 'LatestMonitorScan' });

const ComparedSite = z
  .object({
    id: z.number().int(),
    url: z.string(),
    label: z.string(),
    latestScan: z
      .object({
        overallScore: score,
        dimensionScores: DimensionScores,
        scannedAt: epochMs,
        status: z.enum(['ok', 'down']),
      })
      .nullable()
      .describe('null until the site has been scanned'),
  })
  .meta({ id: 'ComparedSite' });

export const Comparison = z
  .object({ own: ComparedSite, competitors: z.array(ComparedSite) })
  .meta({ id: 'MonitorComparison' });

const label = z.string().trim().min(1).max(200);
const threshold = z.number().int().min(1).max(100);
const url = z.string().min(1).max(2048);
const indexnowKey = z
  .string()
  .regex(/^[A-Za-z0-9-]{8,128}$/, 'an IndexNow key is 8-128 letters, digits or dashes');
const indexnowKeyLocation = z
  .string()
  .min(1)
  .max(2048)
  .describe('URL or path of the key file when it is not at /{key}.txt; must be on the site’s host');

export const AddSiteBody = z.object({
  url: url.describe('Host or full URL of your site'),
  label: label.optional().describe('Display name; defaults to the host'),
  webhook_url: url
    .optional()
    .describe('Where monitoring.alert webhooks are POSTed (Growth and Agency plans)'),
  alert_threshold: threshold.default(10).describe('Points of drop that trigger an alert'),
  indexnow_key: indexnowKey
    .optional()
    .describe('Your IndexNow key: lets the scan verify /{key}.txt, which cannot be found without it'),
  indexnow_key_location: indexnowKeyLocation.optional(),
});

/** A field competitors do not take: present at all, it is a 400 naming it. */
const notForCompetitors = (name: string) =>
  z
    .unknown()
    .refine((v) => v === undefined, `competitor sites never alert: they take no ${name}`)
    .optional()
    .meta({ not: {} }) // no value is valid: the property must be absent
    .describe('Not accepted (400): competitor sites never alert');

export const AddCompetitorBody = z.object({
  url: url.describe("Host or full URL of a competitor's site"),
  label: label.optional().describe('Display name; defaults to the host'),
  webhook_url: notForCompetitors('webhook_url'),
  alert_threshold: notForCompetitors('alert_threshold'),
});

export const SiteScanRequested = z
  .object({
    siteId: z.number().int(),
    status: z
      .enum(['queued', 'pending'])
      .describe('queued: a scan was added; pending: one was already waiting or running, none added'),
    dueAt: z.number().int().describe('The slot the scan records (epoch ms)'),
    latest: z.string().describe('Where its result appears once recorded'),
  })
  .meta({ id: 'SiteScanRequested' });

export const UpdateSiteBody = z
  .object({
    label: label.optional(),
    webhook_url: url.nullable().optional().describe('null removes the webhook'),
    alert_threshold: threshold.optional(),
    status: z.enum(['active', 'paused']).optional().describe('paused: kept with its history, not scanned'),
    indexnow_key: indexnowKey.nullable().optional().describe('null removes the key (and its location)'),
    indexnow_key_location: indexnowKeyLocation.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message:
      'give at least one of label, webhook_url, alert_threshold, status, indexnow_key, indexnow_key_location',
  })
  .meta({ minProperties: 1 });

export const SiteIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const CompareParams = z.object({
  siteId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

export const siteLocation = {
  Location: { description: 'The new site', schema: { type: 'string' } },
};
