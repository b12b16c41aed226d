import { z } from 'zod';
import { DataAge } from '../agents/schema.ts';

const AgentDataSummary = z.object({
  staleAfterDays: z.number().int(),
  stale: z.boolean().describe('The catalogue or any verification source is stale'),
  catalogue: DataAge.extend({ version: z.string() }),
  verificationSources: z
    .object({
      total: z.number().int(),
      stale: z.number().int().describe('How many are stale'),
      oldestAsOf: z.string().nullable().describe('The oldest dated source (YYYY-MM-DD)'),
    })
    .describe('Counts; each source with its age is in GET /api/v1/agents (freshness) and the console'),
});

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
  details: z
    .object({
      agentData: AgentDataSummary.describe(
        'Age of the agent catalogue and of the verification sources (docs/agent-analytics.md)',
      ),
    })
    .optional()
    .describe('Facts an operator watches; absent until first read'),
});
