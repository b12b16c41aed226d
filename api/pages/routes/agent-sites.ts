import type { Context } from 'koa';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { z } from 'zod';
import {
  getSite,
  latestScans,
  listSites,
  registerSite,
  removeSite,
} from '../../../shared/agent-sites/sites.ts';
import { siteInsights } from '../../../shared/agent-traffic/insights.ts';
import {
  resolveWindow,
  siteAgents,
  siteDailyByPlatform,
  sitePages,
  siteStats,
} from '../../../shared/agent-traffic/stats.ts';
import { agentDataFreshness } from '../../../shared/agent-verification/sources-age.ts';
import type { Database } from '../../../shared/db/database.ts';
import { AppError } from '../../../shared/errors.ts';
import { getScan } from '../../../shared/scans/scans.ts';
import { AGENT_READABILITY, modelResult } from '../../presenters/scan.ts';
import { type CitabilityView, renderAgentSite, renderAgentSites } from '../agent-sites-pages.ts';
import { type DashboardQuery, parseDashboardQuery } from '../dashboard-query.ts';
import { definePage, type PageDef } from '../page.ts';
import { accountOf, html200, type PageKit, viewerOf, type Web } from '../web.ts';

// Agent traffic in the console (variant B): registered sites, registering one (its ingest token is
// shown once), a site's dashboard, and removing a site.

const AGENT_SITE_ID = /^(?:\d{1,18}|site_[0-9A-Za-z]{16})$/;
const SiteParams = z.object({ id: z.string().regex(AGENT_SITE_ID) });
const SiteForm = z.object({ url: z.string().default(''), label: z.string().optional() });

export function agentSiteRoutes(kit: PageKit): PageDef[] {
  const { services } = kit;
  const { db, config } = services;

  const agentSitesPage = async (
    ctx: Context,
    web: Web,
    extra: Omit<Parameters<typeof renderAgentSites>[1], 'sites' | 'baseUrl' | 'now'> = {},
    status = 200,
  ) => {
    const sites = await listSites(db, accountOf(web));
    const scans = await latestScans(db, sites);
    const { rows } = await sql<{ now: Date }>`select date_trunc('second', now()) as now`.execute(db);
    const freshness = await agentDataFreshness(db);
    html200(
      ctx,
      renderAgentSites(viewerOf(web), {
        sites: sites.map((site) => ({ site, scan: scans.get(site.id) })),
        baseUrl: config.publicBaseUrl,
        now: rows[0]!.now.toISOString().replace('.000Z', 'Z'),
        freshness,
        ...extra,
      }),
      status,
    );
  };

  return [
    definePage({
      method: 'get',
      path: '/console/agent-sites',
      auth: 'B',
      handler: async (ctx, web) => agentSitesPage(ctx, web),
    }),
    definePage({
      method: 'post',
      path: '/console/agent-sites',
      auth: 'B',
      form: SiteForm,
      handler: async (ctx, web, { form: f }) => {
        try {
          const made = await registerSite(db, {
            accountId: accountOf(web),
            url: f.url,
            label: f.label,
          });
          // The ingest token is in this answer only: never cached, never in a Referer.
          ctx.set('Referrer-Policy', 'no-referrer');
          await agentSitesPage(ctx, web, { registered: { site: made.site, token: made.ingestToken } }, 201);
        } catch (err) {
          if (!(err instanceof AppError) || err.status >= 500) throw err;
          await agentSitesPage(
            ctx,
            web,
            { form: { url: f.url, label: f.label, error: err.detail } },
            err.status,
          );
        }
      },
    }),
    definePage({
      method: 'post',
      path: '/console/agent-sites/:id/remove',
      auth: 'B',
      params: SiteParams,
      handler: async (ctx, web, { params: { id } }) => {
        const site = await getSite(db, accountOf(web), id); // another account's: 404
        await removeSite(db, accountOf(web), site.id);
        await agentSitesPage(ctx, web, { removed: site.label });
      },
    }),
    agentSitePage(kit),
  ];
}

/**
 * The window of the dashboard's range. A range that the database cannot take (a start in the
 * future) becomes a problem on the query, and the default range is shown.
 */
async function dashboardWindow(db: Kysely<Database>, q: DashboardQuery) {
  const r = q.range;
  try {
    return r.kind === 'custom'
      ? await resolveWindow(db, `${r.from}T00:00:00Z`, 30, r.to)
      : await resolveWindow(db, undefined, r.days); // since N days ago, as the API's default `since`
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    q.problems.push(`Custom range: ${err.detail.replace(/^since/, 'the start date')}`);
    q.range = { kind: 'preset', days: 30 };
    q.chosen = false;
    return resolveWindow(db);
  }
}

/** One agent site's dashboard: traffic, agents, pages, insights and its citability scan. */
function agentSitePage({ services }: PageKit): PageDef {
  const { db, config } = services;
  return definePage({
    method: 'get',
    path: '/console/agent-sites/:id',
    auth: 'B',
    params: SiteParams,
    handler: async (ctx, web, { params: { id } }) => {
      const site = await getSite(db, accountOf(web), id); // another account's: 404
      const query = parseDashboardQuery(ctx.query);
      const w = await dashboardWindow(db, query);
      const f = query.filter;
      // Insights judge the last 30 days, unfiltered, whatever the range (they are advice, not counts).
      const insightsWindow = query.chosen ? await resolveWindow(db) : w;
      const [stats, daily, agents, pages, insights, scans] = await Promise.all([
        siteStats(db, site, w, f),
        siteDailyByPlatform(db, site, w, f),
        siteAgents(db, site, w, f),
        sitePages(db, site, w, 20, f),
        siteInsights(db, site, insightsWindow),
        latestScans(db, [site]),
      ]);
      const freshness = await agentDataFreshness(db);
      const scanId = scans.get(site.id)?.scanId;
      const scan = scanId ? await getScan(services, scanId, { artifacts: false }) : undefined;
      const citability: CitabilityView | null =
        scan?.finished_at && scan.results?.[AGENT_READABILITY]
          ? {
              // The newest scan of the address counts whoever ran it (as GET /api/v1/sites), but
              // its report link (the scan id is the secret) only for this account's own scans.
              scanId: scan.account_id === accountOf(web) ? scan.id : null,
              scannedAt: scan.finished_at,
              result: modelResult(scan, AGENT_READABILITY),
            }
          : null;
      html200(
        ctx,
        renderAgentSite(viewerOf(web), {
          site,
          stats,
          daily,
          agents,
          pages,
          insights,
          scan: citability,
          baseUrl: config.publicBaseUrl,
          freshness,
          query,
        }),
        query.problems.length ? 400 : 200,
      );
    },
  });
}
