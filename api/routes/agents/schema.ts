import { z } from 'zod';

export const AgentCatalogue = z
  .object({
    version: z.string().describe('Version of the shipped catalogue snapshot (build date and entry count)'),
    sources: z
      .array(z.object({ name: z.string(), agents: z.number().int().min(0) }))
      .describe('Where the entries come from: `sightline` (our own entries), then each public list'),
    agents: z.array(
      z.object({
        token: z.string().describe('The robots.txt product token, also the agent name in statistics'),
        aliases: z.array(z.string()),
        pattern: z
          .string()
          .optional()
          .describe('A list’s user-agent pattern (regular expression, case-insensitive)'),
        operator: z.string(),
        platform: z.string(),
        purpose: z.enum(['training', 'search', 'browse', 'search-engine']),
        category: z
          .string()
          .describe('Finer grouping as a list words it (AI Data Scrapers, AI Assistants, ...)'),
        ai: z.boolean().describe('false only for classic search engines'),
        match: z.enum(['word', 'product']),
        verification: z.object({
          ipRanges: z.string().nullable().describe('Vendor IP-range source that verifies it'),
          rdnsSuffixes: z.array(z.string()).describe('Reverse-DNS host suffixes that verify it'),
          webBotAuth: z.boolean().describe('Whether a Web Bot Auth signature verifies it'),
        }),
        sources: z.array(z.string()).describe('Where its facts came from'),
        added: z.string().describe('When it entered the catalogue, YYYY-MM-DD'),
      }),
    ),
  })
  .meta({ id: 'AgentCatalogue' });
