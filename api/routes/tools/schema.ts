import { z } from 'zod';

export const ToolBody = z.object({
  url: z.string().min(1).max(2048).describe('Host or full URL'),
});

export const LlmsTxtReport = z
  .object({
    url: z.string().describe('The llms.txt URL checked'),
    present: z.boolean(),
    valid: z.boolean(),
    score: z.number().int().min(0).max(100),
    grade: z.string(),
    issues: z.array(z.string()),
    passes: z.array(z.string()),
    title: z.string().nullable(),
    summary: z.string().nullable(),
    sectionCount: z.number().int(),
    linkCount: z.number().int(),
  })
  .meta({ id: 'LlmsTxtReport' });

export const CitabilityScore = z
  .object({
    url: z.string(),
    overall: z.number().int().min(0).max(100),
    grade: z.string(),
    summary: z.string(),
    dimensions: z.object({
      answerBlockQuality: z.number().int().min(0).max(100),
      selfContainment: z.number().int().min(0).max(100),
      structuralReadability: z.number().int().min(0).max(100),
      statisticalDensity: z.number().int().min(0).max(100),
      uniquenessSignals: z.number().int().min(0).max(100),
    }),
    recommendations: z.array(z.string()),
    optimalWordCount: z.boolean(),
  })
  .meta({ id: 'CitabilityScore' });
