import {
  latestSiteScan,
  requestSiteScan,
  SITE_SCAN_ACCESS,
  siteScan,
} from '../../../shared/agent-sites/citability-scans.ts';
import { getSite } from '../../../shared/agent-sites/sites.ts';
import { agentCorrelation } from '../../../shared/agent-traffic/correlation.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import type { Scan } from '../../../shared/db/tables/scans.ts';
import { notFound, unauthorized, variantMismatch } from '../../../shared/errors.ts';
import { awaitScan, pendingBody, scanFailure } from '../../../shared/scans/scans.ts';
import type { Services } from '../../../shared/services.ts';
import { presentSiteCitability } from '../../presenters/site-citability.ts';
import { type Access, defineRoute, type RouteContext } from '../../route.ts';
import { locationHeader } from '../scans/schema.ts';
import { SiteParams } from '../sites/schema.ts';
import { CitabilityScanBody, SiteCitability, SiteScanParams, SiteScanPending } from './schema.ts';

// Citability scans of registered sites (variant B, every B tier; the weekly Monday scans and
// their alerts are for the optimisation tier). Another account's site answers 404.
const access: Access = { kind: 'key', variants: ['B'] };
const tags = ['Agent traffic'];
const failed = { description: 'The site could not be fetched' };

async function citabilityBody(services: Services, site: AgentSite, scan: Scan) {
  // This site's traffic only: another account may have registered the same URL.
  return presentSiteCitability(site, scan, await agentCorrelation(services.db, scan.url, { site }));
}

/** 200 with the site's citability, or 202 + Location while the worker is still on it. */
async function answer(ctx: RouteContext, services: Services, site: AgentSite, scan: Scan) {
  if (scan.status === 'failed') throw scanFailure(scan);
  if (scan.status !== 'done') {
    const location = `/api/v1/sites/${site.id}/citability/scans/${scan.id}`;
    ctx.status = 202;
    ctx.set('Location', location);
    ctx.set('Retry-After', '2');
    ctx.body = { ...pendingBody(scan, location), siteId: Number(site.id) };
    return;
  }
  ctx.body = await citabilityBody(services, site, scan);
}

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/sites/:id/citability',
    operationId: 'getSiteCitability',
    summary: 'The latest agent-readability scan of a registered site (B shape with siteId)',
    description:
      'The newest finished scan of the site’s URL: on demand, the weekly Monday scan, or any other scan of that URL. Each dimension carries its issues and passes. 404 `not_found` until the site has been scanned.',
    tags,
    access,
    request: { params: SiteParams },
    responses: { 200: { description: 'Latest citability result', schema: SiteCitability } },
    async handler(ctx, { params }, services) {
      const site = await getSite(services.db, ctx.state.principal!.accountId, params.id);
      const scan = await latestSiteScan(services, site);
      if (!scan)
        throw notFound(
          `Site ${site.id} has not been scanned yet: POST /api/v1/sites/${site.id}/citability/scan.`,
        );
      ctx.body = await citabilityBody(services, site, scan);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/sites/:id/citability/scan',
    operationId: 'scanSiteCitability',
    summary: 'Scan a registered site now',
    description:
      'Starts a fresh scan (full by default) of the site’s address, or of one page of it (`path`), as a job and waits for it up to the wait bound: 200 with the result, else 202 with a Location to poll. One pending scan per site and address: while one is queued or running, a new request answers with that one.',
    tags,
    access: SITE_SCAN_ACCESS,
    request: { params: SiteParams, body: CitabilityScanBody },
    responses: {
      200: { description: 'Scan finished within the wait bound', schema: SiteCitability },
      202: { description: 'Still running; poll Location', schema: SiteScanPending, headers: locationHeader },
      422: failed,
    },
    async handler(ctx, { params, body }, services) {
      const site = await getSite(services.db, ctx.state.principal!.accountId, params.id);
      const { scan } = await requestSiteScan(services, site, body.mode, body.path);
      const waitMs =
        body.wait === undefined ? services.config.SCAN_WAIT_MS : Math.min(body.wait * 1000, 120_000);
      await answer(ctx, services, site, await awaitScan(services, scan, waitMs));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/sites/:id/citability/scans/:scanId',
    operationId: 'getSiteCitabilityScan',
    summary: 'Poll one scan of a registered site',
    description:
      'Needs the site owner’s variant B key. Polls are counted in their own bucket (RATE_LIMIT_POLL per hour per key), as scan polls are, so waiting for a scan does not use up the key’s hourly calls.',
    tags,
    access: { kind: 'optional-key', bucket: 'poll', limit: (c) => c.RATE_LIMIT_POLL },
    request: { params: SiteScanParams },
    responses: {
      200: { description: 'The finished scan', schema: SiteCitability },
      202: { description: 'Still running', schema: SiteScanPending, headers: locationHeader },
      401: { description: 'No valid API key' },
      403: { description: '`variant_mismatch`: the key is not a variant B key' },
      422: failed,
    },
    async handler(ctx, { params }, services) {
      const p = ctx.state.principal;
      if (!p) throw unauthorized();
      if (p.variant !== 'B')
        throw variantMismatch('Registered sites belong to variant B (agent readability).');
      const site = await getSite(services.db, p.accountId, params.id);
      await answer(ctx, services, site, await siteScan(services, site, params.scanId));
    },
  }),
];
