import { z } from 'zod';

export const DataAge = z.object({
  source: z.string().describe('IP-range source key, rdns:<platform>, or catalogue'),
  origin: z.enum(['shipped', 'synced']),
  asOf: z.string().nullable().describe('Day the data was built or fetched (YYYY-MM-DD)'),
  ageDays: z.number().int().nullable(),
  stale: z.boolean().describe('Older than staleAfterDays'),
});

const AgentDataFreshness = z.object({
  staleAfterDays: z.number().int(),
  stale: z.boolean().describe('The catalogue or any verification source is stale'),
  catalogue: DataAge.extend({ version: z.string() }),
  verificationSources: z.array(DataAge),
});

export const AgentCatalogue = z
  .object({
    version: z
      .string()
      .describe('Version of the catalogue in use: the shipped snapshot it started from, `+` its revision'),
    snapshot: z.string().describe('The shipped snapshot loaded (build date and entry count)'),
    sources: z
      .array(
        z.object({
          name: z.string(),
          location: z.string().describe('`snapshot`, or the file or URL it was last synced from'),
          agents: z.number().int().min(0).describe('Agents the list had when it was loaded'),
          entries: z.number().int().min(0).describe('Catalogue entries naming it as a source'),
          syncedAt: z.string().describe('When it was last loaded (ISO 8601)'),
        }),
      )
      .describe('Where the entries come from: `sightline` (our own entries), each public list, `local`'),
    freshness: AgentDataFreshness.describe(
      'Age of the catalogue and of each verification source (IP ranges, reverse DNS), stale after staleAfterDays',
    ),
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
        origin: z
          .enum(['snapshot', 'synced', 'local'])
          .describe('The shipped snapshot, a synced list, or an entry this service added (wins)'),
        added: z.string().describe('When it entered the catalogue, YYYY-MM-DD'),
        updated: z.string().describe('When the entry last changed (ISO 8601)'),
      }),
    ),
  })
  .meta({ id: 'AgentCatalogue' });
