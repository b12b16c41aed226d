import type { Context } from 'koa';
import { z } from 'zod';
import { listSites } from '../../../shared/agent-sites/sites.ts';
import { AppError } from '../../../shared/errors.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../../shared/webhooks/endpoints.ts';
import { definePage, type PageDef } from '../page.ts';
import { accountOf, formOf, html200, type PageKit, seeOther, viewerOf, type Web } from '../web.ts';
import {
  renderWebhook,
  renderWebhooks,
  renderWebhooksNeedTier,
  type WebhooksView,
} from '../webhooks-pages.ts';

// B webhooks in the console: what /api/v1/webhooks does (Optimisation tier), as a page and forms,
// through the same domain functions. A secret is shown once, on the page that made it; other
// actions redirect back (303) with a notice named in the address.

const EndpointParams = z.object({ id: z.string().regex(/^\d{1,18}$/) });
const NOTICES: Record<string, NonNullable<WebhooksView['notice']>> = {
  removed: { kind: 'ok', text: 'Endpoint removed.' },
  enabled: { kind: 'ok', text: 'Endpoint enabled: it receives alerts again.' },
  disabled: { kind: 'ok', text: 'Endpoint disabled: it receives no alerts until you enable it.' },
};

/** The site ids ticked in the form (a repeated field arrives as an array). */
function tickedSites(ctx: Context): number[] | null {
  const raw = (ctx.request as { body?: Record<string, unknown> }).body?.site_ids;
  const list = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
    (v): v is string => typeof v === 'string' && /^\d{1,18}$/.test(v),
  );
  return list.length ? list.map(Number) : null;
}

export function webhookRoutes({ services, notFoundPage }: PageKit): PageDef[] {
  const { db } = services;

  const hooksPage = async (ctx: Context, web: Web, extra: Partial<WebhooksView> = {}, status = 200) => {
    const accountId = accountOf(web);
    const [endpoints, sites] = await Promise.all([listEndpoints(db, accountId), listSites(db, accountId)]);
    html200(ctx, renderWebhooks(viewerOf(web), { endpoints, sites, ...extra }), status);
  };

  /** Variant B with the Optimisation tier (as the REST routes); refusals (4xx) shown on the page. */
  const hooks = (run: (ctx: Context, web: Web) => Promise<void>) => async (ctx: Context, web: Web) => {
    if (web.session!.tier !== 'optimisation') return html200(ctx, renderWebhooksNeedTier(viewerOf(web)), 403);
    try {
      await run(ctx, web);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      if (err.status === 404) return notFoundPage(ctx, web);
      await hooksPage(ctx, web, { notice: { kind: 'error', text: err.detail } }, err.status);
    }
  };
  const page = (method: 'get' | 'post', path: string, run: Parameters<typeof hooks>[0]) =>
    definePage({
      method,
      path: `/console/webhooks${path}`,
      auth: 'B',
      ...(path.includes(':id') ? { params: EndpointParams } : {}),
      handler: hooks(run),
    });

  const back = (ctx: Context, notice: string) => {
    seeOther(ctx, `/console/webhooks?notice=${notice}`);
  };

  return [
    page('get', '', async (ctx, web) => {
      const named = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
      await hooksPage(ctx, web, named ? { notice: named } : {});
    }),
    page('post', '', async (ctx, web) => {
      const f = formOf(ctx);
      const threshold = Number(f.threshold);
      const form = { url: f.url, threshold: f.threshold };
      if (!Number.isInteger(threshold) || threshold < 1 || threshold > 100)
        return hooksPage(
          ctx,
          web,
          { form: { ...form, error: 'The threshold is a whole number from 1 to 100.' } },
          400,
        );
      try {
        const w = await createEndpoint(services, accountOf(web), {
          url: f.url ?? '',
          siteIds: tickedSites(ctx),
          threshold: { overall: threshold },
        });
        await hooksPage(ctx, web, { secret: { endpointId: w.id, secret: w.secret! } }, 201);
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 400) throw err;
        await hooksPage(ctx, web, { form: { ...form, error: err.detail } }, 400);
      }
    }),
    page('get', '/:id', async (ctx, web) => {
      const w = await getEndpoint(db, accountOf(web), ctx.params.id!);
      html200(ctx, renderWebhook(viewerOf(web), w, await listDeliveries(db, accountOf(web), w.id, 50)));
    }),
    page('post', '/:id/test', async (ctx, web) => {
      const a = await sendTestEvent(services, accountOf(web), ctx.params.id!);
      const text =
        a.status === 'delivered'
          ? `Test event delivered (HTTP ${a.httpStatus}, ${a.latencyMs} ms).`
          : `Test event not delivered: ${a.error ?? `HTTP ${a.httpStatus}`}.`;
      await hooksPage(ctx, web, { notice: { kind: a.status === 'delivered' ? 'ok' : 'error', text } });
    }),
    page('post', '/:id/rotate', async (ctx, web) => {
      const w = await rotateSecret(db, accountOf(web), ctx.params.id!);
      await hooksPage(ctx, web, { secret: { endpointId: w.id, secret: w.secret! } });
    }),
    ...(
      [
        ['enable', true],
        ['disable', false],
      ] as const
    ).map(([path, enabled]) =>
      page('post', `/:id/${path}`, async (ctx, web) => {
        await updateEndpoint(services, accountOf(web), ctx.params.id!, { enabled });
        back(ctx, enabled ? 'enabled' : 'disabled');
      }),
    ),
    page('post', '/:id/remove', async (ctx, web) => {
      await deleteEndpoint(db, accountOf(web), ctx.params.id!);
      back(ctx, 'removed');
    }),
  ];
}
