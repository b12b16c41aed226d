import { getSite, latestScans, listSites } from '../../../shared/agent-sites/sites.ts';
import { siteInsights } from '../../../shared/agent-traffic/insights.ts';
import {
  resolveWindow,
  siteAgents,
  siteEvents,
  sitePages,
  siteStats,
} from '../../../shared/agent-traffic/stats.ts';
import type { Services } from '../../../shared/services.ts';
import { presentRegisteredSite } from '../../presenters/agent-traffic.ts';
import { type Access, defineRoute } from '../../route.ts';
import {
  AgentBreakdown,
  EventPage,
  EventsQuery,
  FilteredWindowQuery,
  InsightList,
  PageRanking,
  PagesQuery,
  RegisteredSiteList,
  SiteParams,
  SiteStats,
  WindowQuery,
} from './schema.ts';

// Registered sites and their agent traffic (variant B; every B tier). Sites are registered by an
// operator or the account console, not through this API (decisions.md). Another account's site
// answers 404 like a missing one.
const access: Access = { kind: 'key', variants: ['B'] };

/**
 * The caller's site and the window, asked for together (one round trip's wait, not two). A site
 * that is not the caller's answers 404 whatever the window says, as when they were asked in turn.
 */
async function siteAndWindow(db: Services['db'], accountId: string, siteId: string, since?: string) {
  const [site, window] = await Promise.allSettled([getSite(db, accountId, siteId), resolveWindow(db, since)]);
  if (site.status === 'rejected') throw site.reason;
  if (window.status === 'rejected') throw window.reason;
  return { site: site.value, window: window.value };
}
const tags = ['Agent traffic'];
const FILTERS =
  'Filters, as the dashboard’s: `agent`, `page` and `referrer`, in any mix; filtered counts come from the raw events, kept for the retention window.';

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/sites',
    operationId: 'listRegisteredSites',
    summary: 'Your registered sites with tracking ids, last-scan timestamps and overall scores',
    tags,
    access,
    responses: { 200: { description: 'Registered sites', schema: RegisteredSiteList } },
    async handler(ctx, _input, services) {
      const sites = await listSites(services.db, ctx.state.principal!.accountId);
      const scans = await latestScans(services.db, sites);
      ctx.body = { sites: sites.map((s) => presentRegisteredSite(s, scans.get(s.id))) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/sites/:id/stats',
    operationId: 'getSiteStats',
    summary: 'Agent visits by platform and type, verified share, AI referrals, top pages and a daily trend',
    description:
      'Window: from `since` (default 30 days before now), started at 00:00 UTC of the day that contains it (pages and referrals are kept per day; `requestedSince` echoes what was asked, `windowRule` says so), to now. Days no source reported (no collect batch, no imported log) are gaps: `covered: false` and null counts, never zero traffic. ' +
      FILTERS,
    tags,
    access,
    request: { params: SiteParams, query: FilteredWindowQuery },
    responses: { 200: { description: 'Statistics', schema: SiteStats } },
    async handler(ctx, { params, query }, services) {
      const { site, window } = await siteAndWindow(
        services.db,
        ctx.state.principal!.accountId,
        params.id,
        query.since,
      );
      ctx.body = await siteStats(services.db, site, window, query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/sites/:id/events',
    operationId: 'listSiteEvents',
    summary: 'Raw stream of agent visits, newest first',
    description:
      'Cursor pagination: pass `nextCursor` back as `cursor` until it is null. Filters: platform, type, verification, path (exact).',
    tags,
    access,
    request: { params: SiteParams, query: EventsQuery },
    responses: { 200: { description: 'A page of events', schema: EventPage } },
    async handler(ctx, { params, query }, services) {
      const site = await getSite(services.db, ctx.state.principal!.accountId, params.id);
      ctx.body = await siteEvents(services.db, site, query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/sites/:id/agents',
    operationId: 'getSiteAgents',
    summary: 'Per platform and per agent: visits, share, first and last seen, verification mix',
    description: FILTERS,
    tags,
    access,
    request: { params: SiteParams, query: FilteredWindowQuery },
    responses: { 200: { description: 'Agent breakdown', schema: AgentBreakdown } },
    async handler(ctx, { params, query }, services) {
      const { site, window } = await siteAndWindow(
        services.db,
        ctx.state.principal!.accountId,
        params.id,
        query.since,
      );
      ctx.body = await siteAgents(services.db, site, window, query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/sites/:id/pages',
    operationId: 'getSitePages',
    summary: 'Pages ranked by agent visits, with the per-platform split and latest citability score',
    description: FILTERS,
    tags,
    access,
    request: { params: SiteParams, query: PagesQuery },
    responses: { 200: { description: 'Pages', schema: PageRanking } },
    async handler(ctx, { params, query }, services) {
      const { site, window } = await siteAndWindow(
        services.db,
        ctx.state.principal!.accountId,
        params.id,
        query.since,
      );
      ctx.body = await sitePages(services.db, site, window, query.limit, query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/sites/:id/insights',
    operationId: 'getSiteInsights',
    summary: 'Prioritised recommendations from the site’s agent traffic, each with evidence and a fix',
    description:
      'Answer agents getting 4xx/5xx although robots.txt allows them, spoofed agents, pages agents fetch that 404, /llms.txt requested but missing, heavily crawled pages with weak citability, training crawlers dominating, and coverage gaps. High priority first.',
    tags,
    access,
    request: { params: SiteParams, query: WindowQuery },
    responses: { 200: { description: 'Insights', schema: InsightList } },
    async handler(ctx, { params, query }, services) {
      const { site, window } = await siteAndWindow(
        services.db,
        ctx.state.principal!.accountId,
        params.id,
        query.since,
      );
      ctx.body = await siteInsights(services.db, site, window);
    },
  }),
];
