import { z } from 'zod';

export const StatusResponse = z.object({
  status: z.enum(['operational', 'degraded']).describe('operational when healthy'),
  version: z.string().describe('API version'),
  docs: z.string().url().describe('URL of the developer documentation'),
  answerEngines: z
    .array(
      z.object({
        id: z.enum(['openai', 'anthropic', 'perplexity', 'gemini', 'openai_compatible']),
        available: z.boolean().describe('Configured on this server'),
        model: z.string(),
        cites: z.boolean().describe('false: the engine cannot cite; it reports mentions only'),
      }),
    )
    .describe('GEO answer engines (docs/geo.md); none available means visibility answers 503'),
});
