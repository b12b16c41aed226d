import { z } from 'zod';
import { EARLIEST_EVENT_MS } from '../../../shared/agent-traffic/collect.ts';

// Agent traffic (B): camelCase resource fields and ISO 8601 timestamps like the B scan result;
// snake_case query fields.

const iso = z.string().describe('ISO 8601 timestamp');

export const RegisteredSite = z
  .object({
    id: z.number().int(),
    trackingId: z.string().describe('Public id that names the site in POST /api/v1/collect batches'),
    url: z.string(),
    domain: z.string(),
    label: z.string(),
    createdAt: iso,
    lastScanAt: iso
      .nullable()
      .describe('Newest finished agent-readability scan of the URL; null if never scanned'),
    overallScore: z.number().int().nullable().describe('Overall score of that scan'),
    grade: z.string().nullable(),
  })
  .meta({ id: 'RegisteredSite' });

export const RegisteredSiteList = z
  .object({ sites: z.array(RegisteredSite) })
  .meta({ id: 'RegisteredSiteList' });

export const SiteParams = z.object({
  id: z
    .string()
    .regex(/^(?:\d{1,18}|site_[0-9A-Za-z]{16})$/, 'a numeric site id or a site_ tracking id')
    .describe('Numeric site id or tracking id'),
});

const count = z.number().int().min(0);
const share = z.number().min(0).max(100).describe('Percent, one decimal');
const platform = z
  .string()
  .describe('OpenAI, Anthropic, Perplexity, Google, Apple, Meta, Microsoft, ... or Other');
const verificationEnum = z.enum(['signature', 'ip', 'rdns', 'none', 'pending', 'unverified', 'spoofed']);
export const VerificationMix = z
  .object({
    signature: count,
    ip: count,
    rdns: count,
    none: count,
    pending: count.describe('Waiting for their reverse-DNS look-up (settled within minutes by the worker)'),
    unverified: count.describe(
      'Reverse DNS told nothing (a timeout, a resolver failure): retried later, never spoofed',
    ),
    spoofed: count,
  })
  .meta({ id: 'VerificationMix' });

export const WindowQuery = z.object({
  // Rollups outlive the raw events (retention keeps them), so the floor is the earliest time an
  // event can carry, not the retention cut-off. Without one, since=0001-01-01 built a daily[] of
  // 730,000 days and since=0000-01-01 reached Postgres (which has no year 0).
  since: z.iso
    .datetime({ offset: true })
    .refine((s) => Date.parse(s) >= EARLIEST_EVENT_MS, 'must be 2000-01-01T00:00:00Z or later')
    .optional()
    .describe(
      'ISO 8601 start of the window, 2000-01-01 or later; default 30 days before now. Counts begin at 00:00 UTC of the day that contains it (the response’s `since`)',
    ),
});

// The dashboard's click-to-filter over the API (shared/agent-traffic/traffic-filter.ts): each
// narrows what it can name, and filtered counts come from the raw events, so only the retention
// window (AGENT_EVENTS_RETENTION_DAYS) has them.
const filterText = (what: string) => z.string().trim().min(1).max(2048).optional().describe(what);
export const FilteredWindowQuery = WindowQuery.extend({
  agent: filterText(
    'Only this agent: its catalogue token, as `agents[].agent` in /agents (`GPTBot`). Narrows agent visits; AI referrals (people) stay as they are',
  ),
  page: filterText(
    'Only this page: its `path` as /pages returns it (`/pricing`). Narrows agent visits and AI referrals',
  ),
  referrer: filterText(
    'Only AI referrals from this answer engine, as `aiReferrals.platforms[].platform` in /stats (`Perplexity`), and agent visits to the pages it sent people to',
  ),
});

// The window of /stats, /agents, /pages and /insights (shared/agent-traffic/stats.ts windowStart).
const windowFields = {
  since: iso.describe(
    'Start of the window every count covers: 00:00 UTC of the day that contains the requested `since`, as pages, AI referrals and coverage are kept per UTC day',
  ),
  requestedSince: iso.describe('`since` as asked for, or the default (30 days before now)'),
  windowRule: z
    .literal('utc-day-of-since')
    .describe('How `since` follows from `requestedSince`: the start of its UTC day'),
  until: iso,
};

export const SiteStats = z
  .object({
    siteId: z.number().int(),
    ...windowFields,
    visits: count.describe('Agent visits in the window (what user agents claim)'),
    verifiedVisits: count,
    verifiedShare: share,
    spoofedVisits: count,
    pendingVerification: count.describe(
      'Visits whose reverse-DNS verification has not run yet (`verification.pending`)',
    ),
    verification: VerificationMix,
    platforms: z.array(z.object({ platform, visits: count, share, verifiedShare: share })),
    types: z.array(
      z.object({ type: z.enum(['training', 'search', 'browse', 'unknown']), visits: count, share }),
    ),
    searchEngines: z
      .object({ visits: count, platforms: z.array(z.object({ platform, visits: count })) })
      .describe(
        'Classic search-engine crawlers (Googlebot, bingbot, YandexBot, ...): shown beside, not in the AI totals',
      ),
    aiReferrals: z.object({
      visits: count.describe('Human visits referred by answer engines'),
      platforms: z.array(z.object({ platform, visits: count })),
    }),
    topPages: z.array(z.object({ path: z.string(), url: z.string(), visits: count })),
    daily: z.array(
      z.object({
        date: z.string().describe('UTC day, YYYY-MM-DD'),
        covered: z.boolean().describe('Whether any source reported data for the day'),
        sources: z.array(z.string()),
        visits: count.nullable().describe('null on a day without data (a gap, not zero traffic)'),
        verified: count.nullable(),
        aiReferrals: count.nullable(),
      }),
    ),
    coverage: z.object({ daysCovered: count, daysMissing: z.array(z.string()) }),
  })
  .meta({ id: 'AgentTrafficStats' });

export const EventsQuery = z.object({
  platform: z.string().max(64).optional(),
  type: z.enum(['training', 'search', 'browse', 'search-engine']).optional(),
  verification: verificationEnum.optional(),
  path: z.string().max(2048).optional().describe('Exact path (without query)'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(512).optional().describe('nextCursor of the previous page'),
});

export const AgentEvent = z
  .object({
    id: z.string(),
    timestamp: iso,
    method: z.string(),
    path: z.string(),
    pageUrl: z.string(),
    status: z.number().int().nullable(),
    ip: z.string().nullable(),
    userAgent: z.string(),
    platform,
    agent: z.string().nullable().describe('Catalogue token; null for an unnamed AI agent'),
    type: z.enum(['training', 'search', 'browse', 'search-engine']).nullable(),
    verification: verificationEnum,
    confidence: z.number().min(0).max(1),
    source: z.enum(['collect', 'import']),
  })
  .meta({ id: 'AgentEvent' });

export const EventPage = z
  .object({ events: z.array(AgentEvent), nextCursor: z.string().nullable() })
  .meta({ id: 'AgentEventPage' });

const seen = {
  visits: count,
  share,
  firstSeen: iso,
  lastSeen: iso,
  verifiedShare: share,
  verification: VerificationMix,
};
export const AgentBreakdown = z
  .object({
    siteId: z.number().int(),
    ...windowFields,
    visits: count,
    platforms: z.array(
      z.object({
        platform,
        ...seen,
        agents: z.array(
          z.object({
            agent: z.string().nullable(),
            type: z.enum(['training', 'search', 'browse', 'search-engine']).nullable(),
            ...seen,
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'AgentBreakdown' });

export const PagesQuery = FilteredWindowQuery.extend({
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const PageRanking = z
  .object({
    siteId: z.number().int(),
    ...windowFields,
    pages: z.array(
      z.object({
        rank: z.number().int(),
        path: z.string(),
        url: z.string(),
        visits: count,
        errors: count.describe('Agent requests answered 4xx/5xx'),
        notFound: count,
        platforms: z.record(z.string(), count).describe('Visits per platform'),
        citability: z
          .object({ score: z.number().int(), scannedAt: iso })
          .nullable()
          .describe('Latest citability score of the page when it has been scanned'),
      }),
    ),
  })
  .meta({ id: 'AgentPageRanking' });

export const InsightList = z
  .object({
    siteId: z.number().int(),
    ...windowFields,
    insights: z.array(
      z.object({
        id: z.enum([
          'answer_agent_errors',
          'spoofed_agents',
          'llms_txt_missing',
          'agent_404s',
          'crawled_but_weak_citability',
          'training_dominates',
          'coverage_gaps',
        ]),
        priority: z.enum(['high', 'medium', 'low']),
        title: z.string(),
        evidence: z.string(),
        fix: z.string(),
        data: z.record(z.string(), z.unknown()),
      }),
    ),
  })
  .meta({ id: 'AgentTrafficInsights' });
