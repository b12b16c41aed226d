import { z } from 'zod';

const n = z.number().nullable();
export const Benchmarks = z
  .object({
    dimensions: z.array(
      z.object({
        id: z.enum([
          'overall',
          'structure',
          'citability',
          'discoverability',
          'agent_interface',
          'transactability',
        ]),
        sites: z.number().int().describe('Sites scanned on this deployment (newest scan of each URL)'),
        p10: n,
        p25: n,
        p50: n,
        p75: n,
        p90: n,
        mean: n,
      }),
    ),
    yourSites: z.array(
      z.object({
        siteId: z.number().int(),
        url: z.string(),
        ranks: z
          .record(z.string(), z.object({ score: z.number(), percentile: z.number().int().min(0).max(100) }))
          .describe(
            'Per dimension (and overall): the site’s score and its percentile rank among all scanned sites',
          ),
      }),
    ),
    traffic: z.object({
      window: z.string(),
      sitesWithTraffic: z.number().int(),
      platforms: z
        .array(z.object({ platform: z.string(), share: z.number() }))
        .describe(
          'Share of verified and unverified (not spoofed) agent visits; platforms seen on fewer than 3 sites count as Other',
        ),
      types: z.array(z.object({ type: z.string(), share: z.number() })),
    }),
  })
  .meta({ id: 'Benchmarks' });

export const BenchmarkTrends = z
  .object({
    weeks: z.array(
      z.object({
        week: z.string().describe('Monday of the ISO week, YYYY-MM-DD'),
        scans: z.number().int(),
        overall: z.object({ p25: z.number(), p50: z.number(), p75: z.number() }).nullable(),
        trafficByType: z.record(z.string(), z.number()).describe('Percent of agent visits by type'),
      }),
    ),
  })
  .meta({ id: 'BenchmarkTrends' });

export const TrendsQuery = z.object({ weeks: z.coerce.number().int().min(1).max(104).default(12) });
