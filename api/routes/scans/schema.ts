import { z } from 'zod';

const booleanQuery = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional();

export const ScanQueryA = z.object({
  url: z.string().min(1).max(2048).describe('Host or full URL to scan'),
  include_recommendation: booleanQuery.describe('Add the recommended audit bundle'),
  mode: z
    .enum(['quick', 'full'])
    .default('full')
    .describe('quick: plain HTTP only; full: adds a browser render and Lighthouse'),
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(120)
    .optional()
    .describe('Seconds to wait for the result before answering 202'),
});

export const PublicScanBody = z.object({
  url: z.string().min(1).max(2048).describe('Host or full URL to scan'),
  mode: z.enum(['quick', 'full']).default('full'),
});

export const ScanIdParams = z.object({ id: z.string().regex(/^sc_[A-Za-z0-9_-]{10,40}$/, 'not a scan id') });
export const ScanViewQuery = z.object({
  view: z
    .enum(['a', 'b', 'llmstxt', 'citability'])
    .default('a')
    .describe('a: seven-dimension site audit; b: agent readability; llmstxt / citability: the free tools'),
  include_recommendation: booleanQuery,
});

export const Recommendation = z
  .object({
    id: z.string(),
    name: z.string(),
    tagline: z.string(),
    bundlePrice: z.number().int().describe('Minor currency units (pence)'),
    stripeLink: z.string().url(),
    products: z.array(z.string()),
  })
  .meta({ id: 'Recommendation' });

export const DimensionA = z.object({
  id: z.string(),
  name: z.string(),
  score: z.number().int().min(0).max(100),
  issues: z.array(z.string()),
  passes: z.array(z.string()),
});

/** Why a partial scan lacks each missing artifact. */
const PartialReasons = z
  .record(z.string(), z.string())
  .optional()
  .describe(
    'present when partial: why each missing artifact is missing (a gatherer error, or a browser load that ended on a refusal, a proxy error or another status than the HTTP fetch)',
  );

export const ScanResultA = z
  .object({
    url: z.string().describe('Normalised URL, with scheme'),
    domain: z.string(),
    scannedAt: z.string().describe('ISO 8601'),
    overallScore: z.number().int().min(0).max(100),
    grade: z.string(),
    dimensions: z.array(DimensionA),
    recommendation: Recommendation.optional(),
    scanId: z.string(),
    mode: z.enum(['quick', 'full']),
    model: z.object({ id: z.string(), version: z.string() }),
    partial: z
      .boolean()
      .describe(
        'true when the scan lacks an artifact its mode should produce; such a result is never served from the cache',
      ),
    missingArtifacts: z
      .array(z.string())
      .optional()
      .describe('present when partial: the artifacts that are missing (e.g. Lighthouse, Rendered)'),
    partialReasons: PartialReasons,
  })
  .meta({ id: 'ScanResultA' });

export const ScanResultB = z
  .object({
    url: z.string(),
    domain: z.string(),
    scannedAt: z.string(),
    methodologyVersion: z.string(),
    overallScore: z.number().int().min(0).max(100),
    grade: z.string(),
    dimensions: z.array(
      z.object({ id: z.string(), weight: z.number(), score: z.number().int().min(0).max(100) }),
    ),
    researchSignals: z.array(
      z.object({ id: z.string(), weight: z.number(), score: z.number().int().nullable() }),
    ),
    issues: z.array(z.string()).optional(),
    passes: z.array(z.string()).optional(),
    scanId: z.string(),
    mode: z.enum(['quick', 'full']),
    partial: z
      .boolean()
      .describe(
        'true when the scan lacks an artifact its mode should produce; such a result is never served from the cache',
      ),
    missingArtifacts: z
      .array(z.string())
      .optional()
      .describe('present when partial: the artifacts that are missing (e.g. Lighthouse, Rendered)'),
    partialReasons: PartialReasons,
  })
  .meta({ id: 'ScanResultB' });

export const ScanPending = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'running']),
    phase: z
      .string()
      .nullable()
      .describe(
        'What the worker is doing: starting, fetch (plain HTTP), render (browser), lighthouse, score; side-by-side phases are joined with +, e.g. render+lighthouse. Null while queued.',
      ),
    elapsedMs: z.number().int().min(0).describe('Milliseconds since the scan was requested'),
    url: z.string(),
    mode: z.enum(['quick', 'full']),
    poll: z.string().describe('Where to poll for the result'),
  })
  .meta({ id: 'ScanPending' });

export const locationHeader = { Location: { description: 'Where to poll', schema: { type: 'string' } } };
