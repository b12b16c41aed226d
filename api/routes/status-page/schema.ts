import { z } from 'zod';
import { DimensionScores } from '../monitor/schema.ts';

const epochMs = z.number().int().describe('Epoch milliseconds');

export const StatusTokenParams = z.object({
  token: z.string().max(200).describe('The subscription’s status token'),
});

export const StatusPage = z
  .object({
    generatedAt: epochMs,
    plan: z.enum(['growth', 'agency']),
    scanFrequency: z.enum(['daily', 'weekly']),
    sites: z.array(
      z.object({
        id: z.number().int(),
        url: z.string(),
        label: z.string(),
        status: z.enum(['up', 'down', 'pending']).describe('pending: not scanned yet'),
        overallScore: z.number().int().nullable(),
        grade: z.string().nullable(),
        dimensionScores: DimensionScores.nullable(),
        lastScannedAt: epochMs.nullable(),
        nextScanDueAt: epochMs,
        history: z
          .array(
            z.object({ scannedAt: epochMs, overallScore: z.number().int(), status: z.enum(['ok', 'down']) }),
          )
          .describe('The last scans, oldest first'),
      }),
    ),
    alerts: z
      .array(
        z.object({
          site: z.string(),
          label: z.string(),
          alert_type: z.enum(['score_drop', 'dimension_drop', 'site_down', 'recovered']),
          dimension: z.string().nullable(),
          previous_score: z.number().int(),
          current_score: z.number().int(),
          delta: z.number().int(),
          message: z.string(),
          scanned_at: z.string().describe('ISO 8601'),
        }),
      )
      .describe('Recent alerts, newest first'),
  })
  .meta({ id: 'StatusPage' });
