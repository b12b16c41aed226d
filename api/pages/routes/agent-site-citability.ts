import type { Context } from 'koa';
import { z } from 'zod';
import { AdmissionError, Admitter } from '../../../shared/accounts/admission.ts';
import { TIER_LIMITS } from '../../../shared/accounts/auth.ts';
import {
  latestSiteScan,
  pendingSiteScan,
  requestSiteScan,
  SITE_SCAN_ACCESS,
  siteScan,
} from '../../../shared/agent-sites/citability-scans.ts';
import { getSite } from '../../../shared/agent-sites/sites.ts';
import { agentCorrelation } from '../../../shared/agent-traffic/correlation.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import type { Scan } from '../../../shared/db/tables/scans.ts';
import { AppError } from '../../../shared/errors.ts';
import type { Html } from '../../../shared/html.ts';
import { targetErrorStatus } from '../../../shared/scans/scans.ts';
import type { Services } from '../../../shared/services.ts';
import { presentSiteCitability } from '../../presenters/site-citability.ts';
import {
  limitNotice,
  renderSiteCitability,
  renderSiteScanEnded,
  renderSiteScanProgress,
  renderSiteScanResult,
} from '../agent-citability-pages.ts';
import { notice } from '../layout.ts';
import { definePage, type PageDef } from '../page.ts';
import { accountOf, html200, type PageKit, seeOther, showBucket, viewerOf, type Web } from '../web.ts';

// A registered site's citability scan from the console (variant B): the REST route
// POST /api/v1/sites/:id/citability/scan as a form, through the same domain function
// (requestSiteScan) and admission rule (SITE_SCAN_ACCESS), counted in the account's bucket at its
// tier's limit; then the scan's progress and result at its own address (post/redirect/get).

const SITE_ID = /^(?:\d{1,18}|site_[0-9A-Za-z]{16})$/;
const SiteParams = z.object({ id: z.string().regex(SITE_ID) });
const ScanParams = z.object({
  id: z.string().regex(SITE_ID),
  scanId: z.string().regex(/^sc_[A-Za-z0-9_-]{16}$/),
});
const ScanForm = z.object({
  mode: z.enum(['full', 'quick']).default('full'),
  path: z.string().trim().max(2048, 'A path has at most 2048 characters.').optional(),
});

/** The site's citability as REST presents it (its own traffic's agent correlation). */
async function citabilityOf(services: Services, site: AgentSite, scan: Scan) {
  return presentSiteCitability(site, scan, await agentCorrelation(services.db, scan.url, { site }));
}

/** The site's agent-readability page: its latest result and the scan form. */
async function citabilityPage(
  services: Services,
  ctx: Context,
  web: Web,
  site: AgentSite,
  extra: { error?: Html; status?: number; path?: string } = {},
): Promise<void> {
  const [scan, pending] = await Promise.all([
    latestSiteScan(services, site),
    pendingSiteScan(services, site),
  ]);
  const scored = scan && !targetErrorStatus(scan) ? scan : undefined;
  html200(
    ctx,
    renderSiteCitability(viewerOf(web), {
      site,
      result: scored ? await citabilityOf(services, site, scored) : null,
      // The newest scan of the address may be another account's: its id is the secret link.
      ownScan: scored?.account_id === accountOf(web),
      hourlyLimit: TIER_LIMITS[web.session!.tier],
      error: extra.error,
      path: extra.path,
      pendingScanId: pending?.id,
    }),
    extra.status ?? 200,
  );
}

export function agentSiteCitabilityRoutes({ services }: PageKit): PageDef[] {
  const { db, config } = services;
  const admitter = new Admitter(db, config);
  return [
    definePage({
      method: 'get',
      path: '/console/agent-sites/:id/citability',
      auth: 'B',
      params: SiteParams,
      handler: async (ctx, web, { params: { id } }) =>
        citabilityPage(services, ctx, web, await getSite(db, accountOf(web), id)),
    }),
    definePage({
      method: 'post',
      path: '/console/agent-sites/:id/citability/scan',
      auth: 'B',
      params: SiteParams,
      form: ScanForm,
      handler: async (ctx, web, { params: { id }, form }) => {
        const site = await getSite(db, accountOf(web), id); // another account's: 404
        try {
          showBucket(ctx, await admitter.person(web.session!, SITE_SCAN_ACCESS));
        } catch (err) {
          if (!(err instanceof AdmissionError) || err.status !== 429) throw err;
          showBucket(ctx, err.rate);
          const error = limitNotice(err.rate.limit, err.rate.reset, Date.now());
          return citabilityPage(services, ctx, web, site, { error, status: 429 });
        }
        let scan: Scan;
        try {
          ({ scan } = await requestSiteScan(services, site, form.mode, form.path || undefined));
        } catch (err) {
          if (!(err instanceof AppError) || err.status !== 400) throw err;
          const error = notice('error', err.detail);
          return citabilityPage(services, ctx, web, site, { error, status: 400, path: form.path });
        }
        seeOther(ctx, `/console/agent-sites/${site.id}/citability/scans/${scan.id}`);
      },
    }),
    definePage({
      method: 'get',
      path: '/console/agent-sites/:id/citability/scans/:scanId',
      auth: 'B',
      params: ScanParams,
      handler: async (ctx, web, { params: { id, scanId } }) => {
        const site = await getSite(db, accountOf(web), id);
        const scan = await siteScan(services, site, scanId); // not a scan of this site: 404
        const viewer = viewerOf(web);
        if (scan.status === 'queued' || scan.status === 'running')
          return html200(ctx, renderSiteScanProgress(viewer, site, scan));
        if (scan.status === 'failed') {
          const why = scan.error ? `${scan.error.message} (${scan.error.code})` : 'The scan failed.';
          return html200(ctx, renderSiteScanEnded(viewer, site, scan, why));
        }
        const errorStatus = targetErrorStatus(scan);
        if (errorStatus)
          return html200(
            ctx,
            renderSiteScanEnded(
              viewer,
              site,
              scan,
              `The address answered an error status (${errorStatus.detail}), so there is no content to score.`,
            ),
          );
        html200(ctx, renderSiteScanResult(viewer, site, await citabilityOf(services, site, scan)));
      },
    }),
  ];
}
