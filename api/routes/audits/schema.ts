import { z } from 'zod';

export const PRODUCT_IDS = [
  'seo_audit',
  'speed_audit',
  'security_audit',
  'accessibility_audit',
  'mobile_audit',
  'content_audit',
  'conversion_audit',
] as const;

export const AuditOrderBody = z.object({
  product: z.enum(PRODUCT_IDS).describe('Product id from GET /api/v1/products'),
  target_url: z
    .string()
    .min(1)
    .max(2048)
    .describe('Site to audit: a full URL (a bare host is tried over https, then http)'),
  webhook_url: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe('Receives an audit.delivered webhook (Standard Webhooks signed) when the report is ready'),
});

export const OrderIdParams = z.object({ order_id: z.string().min(1).max(64).describe('The order_id') });
export const ReportQuery = z.object({
  token: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("The report's token, as given in report_url; not needed with a key of the ordering account"),
});

const OrderError = z.object({ code: z.string(), message: z.string() });

export const AuditOrder = z
  .object({
    order_id: z.string(),
    status: z.enum(['paid', 'generating', 'delivered', 'failed']),
    product: z.enum(PRODUCT_IDS),
    target_url: z.string(),
    webhook_url: z.string().nullable().describe('Echoes the request; null when none was given'),
    created_at: z.string().describe('ISO 8601'),
    delivered_at: z.string().optional().describe('ISO 8601; present once delivered'),
    report_summary: z.string().optional().describe('Present once delivered'),
    report_url: z
      .string()
      .optional()
      .describe(
        'Present once delivered: the report as HTML (JSON with Accept: application/json); no key needed',
      ),
    report_json_url: z.string().optional().describe('Present once delivered: the report as JSON'),
    error: OrderError.optional().describe('Present when failed: why'),
  })
  .meta({ id: 'AuditOrder' });

export const AuditOrderCreated = AuditOrder.extend({
  estimated_delivery_minutes: z.number().int().min(1),
  webhook_secret: z
    .string()
    .optional()
    .describe("With webhook_url: the account's whsec_ secret that signs deliveries (Standard Webhooks)"),
}).meta({ id: 'AuditOrderCreated' });

const Severity = z.enum(['critical', 'high', 'medium', 'low']);
const Finding = z.object({
  check_id: z.string(),
  title: z.string(),
  severity: Severity,
  scope: z.enum(['site', 'page']),
  points_lost: z.number().describe('Score this costs on the worst affected page'),
  why_it_matters: z.string().nullable(),
  how_to_fix: z.string(),
  affected_count: z.number().int(),
  affected: z.array(
    z.object({
      url: z.string(),
      outcome: z.enum(['warn', 'fail']),
      message: z.string(),
      points_lost: z.number(),
    }),
  ),
});
const BySeverity = <T extends z.ZodType>(t: T) => z.object({ critical: t, high: t, medium: t, low: t });

export const AuditReport = z
  .object({
    format_version: z.number().int(),
    order_id: z.string(),
    product: z.object({ id: z.string(), name: z.string() }),
    dimension: z.object({ id: z.string(), name: z.string() }),
    target_url: z.string(),
    site: z.string().describe('Origin crawled'),
    generated_at: z.string(),
    model: z.object({ id: z.string(), version: z.string() }),
    score: z.number().int().min(0).max(100).nullable().describe('Mean of the page scores'),
    worst_pages_score: z
      .number()
      .int()
      .nullable()
      .optional()
      .describe('Mean of the worst quarter of the pages (reports made before it was kept lack it)'),
    grade: z
      .string()
      .nullable()
      .describe('The lower of the mean’s grade and one band above the worst quarter’s grade'),
    summary: z.string(),
    counts: BySeverity(z.number().int()),
    findings: BySeverity(z.array(Finding)).describe('Grouped by severity, most costly first'),
    passes: z.array(z.object({ check_id: z.string(), title: z.string(), pages: z.number().int() })),
    not_assessed: z.array(
      z.object({ check_id: z.string(), title: z.string(), reason: z.string(), pages: z.number().int() }),
    ),
    pages: z.array(
      z.object({
        url: z.string(),
        status: z.number().int(),
        score: z.number().int().nullable(),
        mode: z.enum(['quick', 'full']),
        depth: z.number().int(),
        source: z.enum(['start', 'link', 'sitemap']),
        linked_from: z.string().nullable().describe('The page whose link led here'),
      }),
    ),
    crawl: z.object({
      pages_audited: z.number().int(),
      full_mode_pages: z.number().int(),
      max_pages: z.number().int(),
      duration_ms: z.number().int(),
      robots_txt: z.string(),
      robots_status: z.number().int().nullable(),
      sitemap_found: z.boolean(),
      crawl_delay_seconds: z.number().nullable(),
      skipped: z.object({
        disallowed_by_robots: z.array(z.string()),
        not_html: z.array(z.string()),
        errors: z.array(z.object({ url: z.string(), error: z.string() })),
        off_site: z.number().int(),
        not_visited: z.number().int(),
        duplicates: z
          .array(z.object({ url: z.string(), sameAs: z.string() }))
          .optional()
          .describe('URLs that were an already audited page (same final URL, canonical URL or document)'),
      }),
    }),
    severity_rule: z.string(),
  })
  .meta({ id: 'AuditReport' });

export const locationHeader = { Location: { description: 'The order', schema: { type: 'string' } } };
