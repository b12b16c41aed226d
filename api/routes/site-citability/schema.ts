import { z } from 'zod';
import { ScanResultB } from '../scans/schema.ts';
import { SiteParams } from '../sites/schema.ts';

// Citability of registered sites (B): the B scan result shape plus siteId, with issues and passes
// per dimension; snake_case request fields.

const score = z.number().int().min(0).max(100);

export const SiteCitability = z
  .object({
    siteId: z.number().int(),
    url: z.string(),
    domain: z.string(),
    scannedAt: z.string().describe('ISO 8601 timestamp'),
    methodologyVersion: z.string(),
    overallScore: score,
    grade: z.string(),
    dimensions: z.array(
      z.object({
        id: z.string(),
        weight: z.number(),
        score,
        name: z.string(),
        issues: z.array(z.string()),
        passes: z.array(z.string()),
      }),
    ),
    researchSignals: z.array(
      z.object({ id: z.string(), weight: z.number(), score: z.number().int().nullable() }),
    ),
    issues: z.array(z.string()).describe('Every dimension’s issues, in dimension order'),
    passes: z.array(z.string()),
    scanId: z.string(),
    mode: z.enum(['quick', 'full']),
    partial: ScanResultB.shape.partial,
    missingArtifacts: ScanResultB.shape.missingArtifacts,
    partialReasons: ScanResultB.shape.partialReasons,
  })
  .meta({ id: 'SiteCitability' });

export const CitabilityScanBody = z
  .object({
    mode: z
      .enum(['full', 'quick'])
      .default('full')
      .describe('full (default) adds a headless-browser render and a Lighthouse run'),
    path: z
      .string()
      .max(2048)
      .regex(/^\/(?!\/)/, 'a path starting with a single /')
      .optional()
      .describe('A page of the site to scan instead of its address: a path on its origin, e.g. /pricing'),
    wait: z.coerce
      .number()
      .int()
      .min(0)
      .max(120)
      .optional()
      .describe('Seconds to wait for the result before answering 202 (default SCAN_WAIT_MS)'),
  })
  .meta({ id: 'CitabilityScanRequest' });

export const SiteScanParams = SiteParams.extend({
  scanId: z.string().regex(/^sc_[A-Za-z0-9_-]{16}$/, 'a scan id'),
});

export const SiteScanPending = z
  .object({
    id: z.string(),
    siteId: z.number().int(),
    status: z.enum(['queued', 'running']),
    phase: z.string().nullable(),
    elapsedMs: z.number().int().min(0).describe('Milliseconds since the scan was requested'),
    url: z.string(),
    mode: z.enum(['quick', 'full']),
    poll: z.string().describe('Where to poll for the result'),
  })
  .meta({ id: 'SiteScanPending' });
