import type Router from '@koa/router';
import { z } from 'zod';
import { takeToken } from '../../../shared/accounts/rate-limit.ts';
import { recommendBundle } from '../../../shared/audits/bundles.ts';
import { listProducts } from '../../../shared/audits/products.ts';
import { AppError } from '../../../shared/errors.ts';
import { elapsedLabel, phaseLabel } from '../../../shared/scans/phases.ts';
import { getScan, requestScan, targetErrorStatus, vetTargetUrl } from '../../../shared/scans/scans.ts';
import { AGENT_READABILITY, modelResult, presentScanA } from '../../presenters/scan.ts';
import { definePage, type PageDef } from '../page.ts';
import {
  renderErrorVerdict,
  renderHome,
  renderProgress,
  renderReport,
  renderScanFailed,
} from '../scan-page.ts';
import { formOf, html200, type PageKit, seeOther, showBucket } from '../web.ts';

// The free scan: the home page's form, the progress page and the shareable report at /r/:id.

const SCAN_ID = /^sc_[A-Za-z0-9_-]{16}$/;

/** The progress page's script polls this JSON until the scan is done (not a page: no session). */
export function scanStateRoute(router: Router, { services }: PageKit): void {
  router.get('/r/:id/state', async (ctx) => {
    ctx.state.routeName = '/r/:id/state';
    ctx.set('Cache-Control', 'no-store');
    const scan = SCAN_ID.test(ctx.params.id!) ? await getScan(services, ctx.params.id!) : undefined;
    if (!scan) {
      ctx.status = 404;
      ctx.body = { done: true };
      return;
    }
    ctx.body = {
      done: scan.status === 'done' || scan.status === 'failed',
      status: scan.status,
      phase: scan.phase,
      label: phaseLabel(scan.status, scan.phase),
      elapsed: elapsedLabel(scan.age_ms ?? 0),
    };
  });
}

export function scanRoutes(kit: PageKit): PageDef[] {
  const { services } = kit;
  const { db, config } = services;

  return [
    definePage({
      method: 'get',
      path: '/',
      auth: 'anyone',
      // API clients (curl's */*, JSON) get where the API is.
      forMachines: (ctx) => {
        ctx.body = {
          service: 'Sightline',
          status: `${config.publicBaseUrl}/api/v1/status`,
          openapi: `${config.publicBaseUrl}/openapi.json`,
          docs: config.docsUrl,
        };
      },
      handler: async (ctx, web) => {
        const url = typeof ctx.query.url === 'string' ? ctx.query.url.slice(0, 2000) : undefined;
        html200(ctx, renderHome({ viewer: web.viewer, csrf: web.csrf, url }));
      },
    }),
    definePage({
      method: 'post',
      path: '/scan',
      auth: 'anyone',
      handler: async (ctx, web) => {
        const input = (formOf(ctx).url ?? '').trim();
        if (!input) {
          html200(
            ctx,
            renderHome({ viewer: web.viewer, csrf: web.csrf, error: 'Enter a website address.' }),
            400,
          );
          return;
        }
        // The same per-address allowance as the keyless API scan (POST /api/public/scan): one bucket.
        const state = await takeToken(db, `ip:public-scan:${ctx.ip}`, config.PUBLIC_SCAN_IP_LIMIT);
        showBucket(ctx, state);
        if (!state.allowed) {
          html200(
            ctx,
            renderHome({
              viewer: web.viewer,
              csrf: web.csrf,
              url: input,
              limited: { limit: state.limit, resetAt: state.reset, now: Date.now() },
            }),
            429,
          );
          return;
        }
        let url: URL;
        try {
          url = await vetTargetUrl(services, input);
        } catch (err) {
          if (!(err instanceof AppError) || err.status !== 400) throw err;
          html200(
            ctx,
            renderHome({ viewer: web.viewer, csrf: web.csrf, url: input, error: err.detail }),
            400,
          );
          return;
        }
        const scan = await requestScan(services, {
          url,
          mode: config.WEB_SCAN_MODE,
          accountId: web.session?.accountId ?? null,
        });
        seeOther(ctx, `/r/${scan.id}`);
      },
    }),

    reportPage(kit),
  ];
}

/** The shareable report at /r/:id (the progress view while the scan runs). */
function reportPage({ services, notFoundPage }: PageKit): PageDef {
  const { db, config } = services;
  return definePage({
    method: 'get',
    path: '/r/:id',
    auth: 'anyone',
    params: z.object({ id: z.string().regex(SCAN_ID) }),
    handler: async (ctx, web, { params: { id } }) => {
      const scan = await getScan(services, id);
      if (!scan) return notFoundPage(ctx, web);
      // The link is the secret (scan ids are unguessable): keep it out of Referer headers.
      ctx.set('Referrer-Policy', 'no-referrer');
      if (scan.status === 'queued' || scan.status === 'running') {
        html200(ctx, renderProgress(scan, web.viewer));
        return;
      }
      if (scan.status === 'failed') {
        html200(ctx, renderScanFailed(scan, web.viewer));
        return;
      }
      const errorPage = targetErrorStatus(scan);
      if (errorPage) {
        const status = (errorPage.extra.httpStatus as number | null | undefined) ?? null;
        html200(ctx, renderErrorVerdict(scan, status, web.viewer));
        return;
      }
      const a = presentScanA(scan);
      const prices = new Map((await listProducts(db)).map((p) => [p.id, p.price_pence]));
      html200(
        ctx,
        renderReport({
          scan,
          a: { ...a, recommendation: recommendBundle(a.dimensions, prices, config, scan.url) },
          b: modelResult(scan, AGENT_READABILITY),
          shareUrl: `${config.publicSiteUrl}/r/${scan.id}`,
          viewer: web.viewer,
        }),
      );
    },
  });
}
