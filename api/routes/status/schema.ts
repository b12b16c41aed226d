import { z } from 'zod';

const DataAge = z.object({
  source: z.string().describe('IP-range source key, rdns:<platform>, or catalogue'),
  origin: z.enum(['shipped', 'synced']),
  asOf: z.string().nullable().describe('Day the data was built or fetched (YYYY-MM-DD)'),
  ageDays: z.number().int().nullable(),
  stale: z.boolean().describe('Older than staleAfterDays'),
});
const AgentDataFreshness = z.object({
  staleAfterDays: z.number().int(),
  stale: z.boolean().describe('Any source below is stale'),
  catalogue: DataAge.extend({ version: z.string() }),
  verificationSources: z.array(DataAge),
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
      agentData: AgentDataFreshness.describe(
        'Age of the agent catalogue and of the verification sources (docs/agent-analytics.md)',
      ),
    })
    .optional()
    .describe('Facts an operator watches; absent until first read'),
});
