import type { Context } from 'koa';
import { z } from 'zod';
import type { GeoRunKind } from '../../../shared/db/tables/geo.ts';
import { AppError } from '../../../shared/errors.ts';
import { addPrompt, listPrompts, removePrompt } from '../../../shared/geo/prompts.ts';
import { checkSite } from '../../../shared/geo/site-checks.ts';
import { historyView, latestView, requireEngines } from '../../../shared/geo/views.ts';
import { latestRun, requestRun } from '../../../shared/geo/visibility-runs.ts';
import { getSite } from '../../../shared/monitoring/sites.ts';
import type { Services } from '../../../shared/services.ts';
import { renderMessage } from '../auth-pages.ts';
import { type GeoPageView, renderGeo } from '../geo-pages.ts';
import { definePage, type PageDef } from '../page.ts';
import { accountOf, formOf, html200, type PageKit, seeOther, viewerOf, type Web } from '../web.ts';

// GEO of one monitored site in the console (variant A): what the /api/v1/geo routes do, as a page
// and forms, through the same domain functions: a GEO check, visibility and share-of-voice runs,
// the account's prompts, the history. Actions redirect back (303) with a notice named in the address.

const SITE_ID = /^\d{1,18}$/;
const SiteParams = z.object({ id: z.string().regex(SITE_ID) });
const PromptParams = z.object({ id: z.string().regex(SITE_ID), promptId: z.string().regex(SITE_ID) });
const NOTICES: Record<string, NonNullable<GeoPageView['notice']>> = {
  'check-done': { kind: 'ok', text: 'GEO check done.' },
  'run-started': { kind: 'ok', text: 'Run started: answer engines are being asked your prompts.' },
  'prompt-added': { kind: 'ok', text: 'Prompt added.' },
  'prompt-removed': { kind: 'ok', text: 'Prompt removed.' },
};
const PromptForm = z.object({
  label: z
    .string()
    .trim()
    .min(1, 'Give the prompt a short label.')
    .max(200, 'A label has at most 200 characters.'),
  prompt: z
    .string()
    .trim()
    .min(1, 'Write the question.')
    .max(1000, 'A question has at most 1000 characters.'),
});

type HistoryItem = Awaited<ReturnType<typeof historyView>>['items'][number];

function summarise(item: HistoryItem): string {
  if (item.type === 'check') {
    const c = item.check as { overallScore?: number; grade?: string };
    return `GEO check: ${c.overallScore}/85, grade ${c.grade}`;
  }
  const run = item.run as { status?: string; citationRate?: number };
  const what = item.type === 'sov' ? 'Share-of-voice run' : 'Visibility run';
  const rate =
    typeof run.citationRate === 'number' ? `, citation rate ${Math.round(run.citationRate * 100)}%` : '';
  return `${what}: ${run.status}${rate}`;
}

/** Why runs cannot start on this server (no answer engine configured), or undefined. */
function enginesMissing(services: Services): string | undefined {
  try {
    requireEngines(services);
    return undefined;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return `Visibility runs need an answer engine, and none is configured on this server: ${err.detail}`;
  }
}

/** The GEO page of the site in the address, read through the /api/v1/geo domain functions. */
async function geoPage(
  services: Services,
  ctx: Context,
  web: Web,
  extra: Partial<GeoPageView> = {},
  status = 200,
): Promise<void> {
  const { db } = services;
  const accountId = accountOf(web);
  const id = Number(ctx.params.id);
  const site = await getSite(db, accountId, id);
  let checkScanId: string | undefined;
  const scanId = typeof ctx.query.check_scan === 'string' ? ctx.query.check_scan : undefined;
  if (scanId) {
    // A check started from this page: recorded as soon as its scan is done.
    const out = await checkSite(services, accountId, id, { fresh: false, scanId, waitMs: 0 });
    if (out.kind === 'pending') checkScanId = scanId;
    else extra.notice ??= NOTICES['check-done'];
  }
  const isPending = async (kind: GeoRunKind) =>
    Boolean(await latestRun(db, site.id, kind, ['queued', 'running']));
  const [latest, prompts, history] = await Promise.all([
    latestView(services, accountId, id),
    listPrompts(db, accountId),
    historyView(services, accountId, id, 1, 10),
  ]);
  const view: GeoPageView = {
    site,
    latest: latest as GeoPageView['latest'],
    pending: { visibility: await isPending('visibility'), sov: await isPending('sov'), checkScanId },
    prompts: { list: prompts.prompts, quota: prompts.quota },
    history: history.items.map((item) => ({
      type: item.type === 'check' ? 'check' : 'run',
      at: item.at,
      summary: summarise(item),
    })),
    enginesMissing: enginesMissing(services),
    ...extra,
  };
  html200(ctx, renderGeo(viewerOf(web), view), status);
}

export function geoRoutes({ services, notFoundPage }: PageKit): PageDef[] {
  const { db } = services;

  /** A GEO page or action of this account's site; a refusal (4xx) is shown as a page. */
  const geo =
    (run: (ctx: Context, web: Web, id: number) => Promise<void>) => async (ctx: Context, web: Web) => {
      try {
        await run(ctx, web, Number(ctx.params.id));
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        if (err.status === 404 && err.code === 'not_found') return notFoundPage(ctx, web);
        if (ctx.method === 'GET' || err.status === 403)
          return html200(ctx, renderMessage(err.title, err.detail, viewerOf(web)), err.status);
        await geoPage(services, ctx, web, { notice: { kind: 'error', text: err.detail } }, err.status);
      }
    };
  const page = (method: 'get' | 'post', path: string, run: Parameters<typeof geo>[0]) =>
    definePage({
      method,
      path: `/console/sites/:id/geo${path}`,
      auth: 'A',
      params: path.includes(':promptId') ? PromptParams : SiteParams,
      handler: geo(run),
    });

  const back = (ctx: Context, id: number, query: string) => {
    seeOther(ctx, `/console/sites/${id}/geo?${query}`);
  };

  return [
    page('get', '', async (ctx, web) => {
      const named = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
      await geoPage(services, ctx, web, named ? { notice: named } : {});
    }),
    page('post', '/check', async (ctx, web, id) => {
      const out = await checkSite(services, accountOf(web), id, { fresh: true, waitMs: 0 });
      back(ctx, id, out.kind === 'pending' ? `check_scan=${out.scan.id}` : 'notice=check-done');
    }),
    ...(['visibility', 'sov'] as const).map((kind) =>
      page('post', `/${kind}`, async (ctx, web, id) => {
        await requestRun(services, accountOf(web), id, kind, 'console');
        back(ctx, id, 'notice=run-started');
      }),
    ),
    page('post', '/prompts', async (ctx, web, id) => {
      const f = formOf(ctx);
      const parsed = PromptForm.safeParse({ label: f.label ?? '', prompt: f.prompt ?? '' });
      const promptForm = { label: f.label, prompt: f.prompt };
      if (!parsed.success)
        return geoPage(
          services,
          ctx,
          web,
          { promptForm: { ...promptForm, error: parsed.error.issues[0]!.message } },
          400,
        );
      try {
        await addPrompt(db, accountOf(web), parsed.data);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500 || err.status === 404) throw err;
        return geoPage(services, ctx, web, { promptForm: { ...promptForm, error: err.detail } }, err.status);
      }
      back(ctx, id, 'notice=prompt-added');
    }),
    page('post', '/prompts/:promptId/remove', async (ctx, web, id) => {
      const promptId = ctx.params.promptId!;
      await getSite(db, accountOf(web), id);
      await removePrompt(db, accountOf(web), Number(promptId));
      back(ctx, id, 'notice=prompt-removed');
    }),
  ];
}
