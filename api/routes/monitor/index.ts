import {
  addSite,
  compareSites,
  getSite,
  latestScan,
  listSites,
  removeSite,
  requestSiteScan,
  requireSubscription,
  updateSite,
} from '../../../shared/monitoring/sites.ts';
import type { Services } from '../../../shared/services.ts';
import { accountWebhookSecret } from '../../../shared/webhooks/deliver.ts';
import { ProblemSchema } from '../../openapi.ts';
import {
  presentComparedSite,
  presentLatestScan,
  presentSite,
  presentSubscription,
} from '../../presenters/monitoring.ts';
import { type Access, defineRoute, type RouteContext } from '../../route.ts';
import {
  AddCompetitorBody,
  AddSiteBody,
  CompareParams,
  Comparison,
  LatestMonitorScan,
  MonitoredSite,
  SiteIdParams,
  SiteList,
  SiteScanRequested,
  siteLocation,
  UpdateSiteBody,
} from './schema.ts';

// Monitoring (variant A). Any A tier may call these; what they need is an active Growth or
// Agency subscription on the account (403 subscription_required otherwise, decisions.md).
const access: Access = { kind: 'key', variants: ['A'] };
const tags = ['Monitoring'];
const conflict = {
  description: 'The account already monitors this URL',
  schema: ProblemSchema,
  contentType: 'application/problem+json',
};

const created = (ctx: RouteContext, body: ReturnType<typeof presentSite>) => {
  ctx.status = 201;
  ctx.set('Location', `/api/v1/monitor/sites/${body.id}`);
  ctx.body = body;
};

/** Adds the account's webhook signing secret to a site that has a webhook_url. */
async function withSecret<T extends { webhook_url: string | null }>(
  services: Services,
  accountId: string,
  view: T,
) {
  if (!view.webhook_url) return view;
  return { ...view, webhook_secret: await accountWebhookSecret(services.db, accountId) };
}

export default [
  defineRoute({
    method: 'post',
    path: '/api/v1/monitor/sites',
    operationId: 'addMonitoredSite',
    summary: 'Monitor one of your sites',
    description:
      'Adds an own site: scanned at once (within a minute), then daily (Agency) or weekly (Growth). `webhook_url` receives monitoring.alert webhooks when a scan finds the score dropped by more than `alert_threshold` points, a dimension dropped, the site down, or the site recovered. Own sites and competitors share the plan’s site quota (403 quota_exceeded past it).',
    tags,
    access,
    request: { body: AddSiteBody },
    responses: {
      201: { description: 'The monitored site', schema: MonitoredSite, headers: siteLocation },
      409: conflict,
    },
    async handler(ctx, { body }, services) {
      const site = await addSite(services, ctx.state.principal!.accountId, {
        url: body.url,
        label: body.label,
        webhookUrl: body.webhook_url,
        alertThreshold: body.alert_threshold,
        indexnowKey: body.indexnow_key,
        indexnowKeyLocation: body.indexnow_key_location,
        siteType: 'own',
      });
      created(ctx, await withSecret(services, ctx.state.principal!.accountId, presentSite(site)));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/monitor/sites',
    operationId: 'listMonitoredSites',
    summary: 'Your monitored sites and competitors, with the subscription',
    tags,
    access,
    responses: { 200: { description: 'Sites and subscription', schema: SiteList } },
    async handler(ctx, _input, services) {
      const { sites, subscription } = await listSites(services, ctx.state.principal!.accountId);
      ctx.body = {
        sites: sites.map(presentSite),
        subscription: presentSubscription(subscription, sites.length),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/monitor/sites/:id',
    operationId: 'getMonitoredSite',
    summary: 'One monitored site',
    tags,
    access,
    request: { params: SiteIdParams },
    responses: { 200: { description: 'The monitored site', schema: MonitoredSite } },
    async handler(ctx, { params }, services) {
      const accountId = ctx.state.principal!.accountId;
      await requireSubscription(services.db, accountId);
      ctx.body = presentSite(await getSite(services.db, accountId, params.id));
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/monitor/sites/:id',
    operationId: 'updateMonitoredSite',
    summary: 'Change a site’s label, webhook_url, alert_threshold or status',
    description:
      'Competitor sites never alert, so they take no webhook_url or alert_threshold. `webhook_url: null` removes the webhook; `status: paused` stops scans and keeps the history (a paused site still counts toward the quota).',
    tags,
    access,
    request: { params: SiteIdParams, body: UpdateSiteBody },
    responses: { 200: { description: 'The updated site', schema: MonitoredSite } },
    async handler(ctx, { params, body }, services) {
      const site = await updateSite(services, ctx.state.principal!.accountId, params.id, {
        label: body.label,
        webhookUrl: body.webhook_url,
        alertThreshold: body.alert_threshold,
        status: body.status,
        indexnowKey: body.indexnow_key,
        indexnowKeyLocation: body.indexnow_key_location,
      });
      const view = presentSite(site);
      // Hand the signing secret out when the caller has just set a webhook, so alerts can be verified.
      ctx.body = body.webhook_url ? await withSecret(services, ctx.state.principal!.accountId, view) : view;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/monitor/sites/:id',
    operationId: 'removeMonitoredSite',
    summary: 'Stop monitoring a site (own or competitor)',
    description: 'Deletes the site with its scan history and alerts, and frees its place in the quota.',
    tags,
    access,
    request: { params: SiteIdParams },
    responses: { 204: { description: 'Removed' } },
    async handler(ctx, { params }, services) {
      await removeSite(services, ctx.state.principal!.accountId, params.id);
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/monitor/sites/:id/latest',
    operationId: 'getLatestMonitorScan',
    summary: 'The latest monitoring scan of a site',
    description: 'Answers 404 `not_scanned_yet` until the first scan has run.',
    tags,
    access,
    request: { params: SiteIdParams },
    responses: { 200: { description: 'Latest monitoring scan', schema: LatestMonitorScan } },
    async handler(ctx, { params }, services) {
      ctx.body = presentLatestScan(await latestScan(services, ctx.state.principal!.accountId, params.id));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/monitor/sites/:id/scan',
    operationId: 'scanMonitoredSite',
    summary: 'Scan a monitored site now',
    description:
      'Adds a monitoring scan of the site beside its schedule (the schedule is unchanged); its result appears at `/latest` and in alerts like any scheduled scan. One pending scan per site: while one waits or runs, asking again answers `status: pending` and adds none. Each call counts against the key’s hourly limit. A paused site answers 409 `site_paused`.',
    tags,
    access,
    request: { params: SiteIdParams },
    responses: {
      202: {
        description: 'Queued (or already pending)',
        schema: SiteScanRequested,
        headers: { Location: { description: 'The latest scan of the site', schema: { type: 'string' } } },
      },
      409: {
        description: 'The site is paused',
        schema: ProblemSchema,
        contentType: 'application/problem+json',
      },
    },
    async handler(ctx, { params }, services) {
      const r = await requestSiteScan(services, ctx.state.principal!.accountId, params.id);
      const latest = `/api/v1/monitor/sites/${params.id}/latest`;
      ctx.status = 202;
      ctx.set('Location', latest);
      ctx.body = { siteId: params.id, status: r.state, dueAt: r.dueAt, latest };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/monitor/compare/:siteId',
    operationId: 'compareMonitoredSite',
    summary: 'One of your sites beside your tracked competitors',
    tags,
    access,
    request: { params: CompareParams },
    responses: { 200: { description: 'Comparison', schema: Comparison } },
    async handler(ctx, { params }, services) {
      const { own, competitors, scans } = await compareSites(
        services,
        ctx.state.principal!.accountId,
        params.siteId,
      );
      ctx.body = {
        own: presentComparedSite(own, scans.get(own.id)),
        competitors: competitors.map((c) => presentComparedSite(c, scans.get(c.id))),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/monitor/competitors',
    operationId: 'addCompetitor',
    summary: 'Track a competitor’s site',
    description:
      'Scanned on the same schedule as your own sites and shown in comparisons; never alerts. Counts toward the site quota.',
    tags,
    access,
    request: { body: AddCompetitorBody },
    responses: {
      201: { description: 'The competitor site', schema: MonitoredSite, headers: siteLocation },
      409: conflict,
    },
    async handler(ctx, { body }, services) {
      const site = await addSite(services, ctx.state.principal!.accountId, {
        url: body.url,
        label: body.label,
        siteType: 'competitor',
      });
      created(ctx, presentSite(site));
    },
  }),
];
