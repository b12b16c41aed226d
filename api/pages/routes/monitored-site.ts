import type { Context } from 'koa';
import { z } from 'zod';
import { AppError } from '../../../shared/errors.ts';
import { recentAlerts, sitesWithHistory } from '../../../shared/monitoring/history.ts';
import { removeSite, requestSiteScan, updateSite } from '../../../shared/monitoring/sites.ts';
import { renderSite } from '../console-pages.ts';
import { definePage, type PageDef } from '../page.ts';
import type { ManageView } from '../site-manage.ts';
import { accountOf, formOf, html200, type PageKit, seeOther, viewerOf, type Web } from '../web.ts';

// One monitored site in the console (variant A): its scores, history and alerts, and what a key
// can do to it over REST, as forms: scan now, edit label/threshold/webhook, pause or resume,
// remove. Each action calls the same domain function as the REST route and redirects back
// (post/redirect/get), with a notice named in the address.

const SiteParams = z.object({ id: z.string().regex(/^\d{1,18}$/) });

/** The notices a redirect may name: fixed texts, so an address cannot put words on the page. */
const NOTICES: Record<string, NonNullable<ManageView['notice']>> = {
  'scan-queued': { kind: 'ok', text: 'Scan queued: it starts within a minute, and its scores appear here.' },
  'scan-pending': {
    kind: 'info',
    text: 'A scan of this site is already waiting or running: no second one was added.',
  },
  saved: { kind: 'ok', text: 'Changes saved.' },
  paused: { kind: 'ok', text: 'Paused: the site keeps its history and is not scanned until you resume it.' },
  resumed: { kind: 'ok', text: 'Resumed: the site is scanned at the next tick of the scheduler.' },
};

const SettingsForm = z.object({
  label: z.string().trim().min(1, 'Give the site a label.').max(200, 'At most 200 characters.'),
  alert_threshold: z.coerce
    .number({ message: 'A whole number of points from 1 to 100.' })
    .int('A whole number of points from 1 to 100.')
    .min(1, 'A whole number of points from 1 to 100.')
    .max(100, 'A whole number of points from 1 to 100.')
    .optional(),
  webhook_url: z.string().trim().max(2048, 'At most 2048 characters.').optional(),
});

/** The settings form read: its parsed values, or what was typed with an error per field. */
function readSettings(f: Record<string, string>) {
  const form = { label: f.label, alertThreshold: f.alert_threshold, webhookUrl: f.webhook_url };
  const result = SettingsForm.safeParse({
    label: f.label ?? '',
    alert_threshold: f.alert_threshold,
    webhook_url: f.webhook_url,
  });
  if (result.success) return { form, parsed: result.data, errors: {} };
  const errors: NonNullable<ManageView['errors']> = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if (field === 'label') errors.label = issue.message;
    if (field === 'alert_threshold') errors.alertThreshold = issue.message;
    if (field === 'webhook_url') errors.webhookUrl = issue.message;
  }
  return { form, parsed: undefined, errors };
}

export function monitoredSiteRoutes({ services, notFoundPage }: PageKit): PageDef[] {
  const { db } = services;

  /** The site's page, or a 404 page when the site is not this account's. */
  const sitePage = async (ctx: Context, web: Web, manage: ManageView = {}, status = 200) => {
    const id = ctx.params.id!;
    const [site] = await sitesWithHistory(db, accountOf(web), { siteId: id });
    if (!site) return notFoundPage(ctx, web);
    const alerts = await recentAlerts(db, accountOf(web), { siteId: id });
    html200(ctx, renderSite(viewerOf(web), { ...site, alerts }, manage), status);
  };

  /** Runs an action on this account's site; a refusal (4xx) is shown on the site's page. */
  const action =
    (run: (ctx: Context, web: Web, id: number) => Promise<string | undefined>) =>
    async (ctx: Context, web: Web) => {
      try {
        const next = await run(ctx, web, Number(ctx.params.id));
        if (next === undefined) return;
        seeOther(ctx, next);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        if (err.status === 404) return notFoundPage(ctx, web);
        await sitePage(ctx, web, { notice: { kind: 'error', text: err.detail } }, err.status);
      }
    };
  const post = (path: string, run: Parameters<typeof action>[0]) =>
    definePage({
      method: 'post',
      path: `/console/sites/:id/${path}`,
      auth: 'A',
      params: SiteParams,
      handler: action(run),
    });

  return [
    definePage({
      method: 'get',
      path: '/console/sites/:id',
      auth: 'A',
      params: SiteParams,
      handler: async (ctx, web) => {
        const named = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
        await sitePage(ctx, web, { notice: named });
      },
    }),

    post('scan', async (_ctx, web, id) => {
      const asked = await requestSiteScan(services, accountOf(web), id);
      return `/console/sites/${id}?notice=scan-${asked.state}`;
    }),

    post('status', async (ctx, web, id) => {
      const status = formOf(ctx).status === 'active' ? 'active' : 'paused';
      await updateSite(services, accountOf(web), id, { status });
      return `/console/sites/${id}?notice=${status === 'active' ? 'resumed' : 'paused'}`;
    }),

    post('settings', async (ctx, web, id) => {
      const { form, parsed, errors } = readSettings(formOf(ctx));
      if (!parsed) {
        await sitePage(ctx, web, { form, errors }, 400);
        return undefined;
      }
      const { label, alert_threshold, webhook_url } = parsed;
      try {
        await updateSite(services, accountOf(web), id, {
          label,
          // A competitor's form has neither field; sending them would be refused.
          ...(alert_threshold !== undefined ? { alertThreshold: alert_threshold } : {}),
          ...(webhook_url !== undefined ? { webhookUrl: webhook_url === '' ? null : webhook_url } : {}),
        });
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 400) throw err;
        const webhook = err.extra.errors?.some((e) => e.field.includes('webhook_url'));
        const fieldErrors = webhook ? { webhookUrl: err.detail } : {};
        await sitePage(
          ctx,
          web,
          { form, errors: fieldErrors, notice: { kind: 'error', text: err.detail } },
          400,
        );
        return undefined;
      }
      return `/console/sites/${id}?notice=saved`;
    }),

    post('remove', async (_ctx, web, id) => {
      await removeSite(services, accountOf(web), id);
      return '/console/sites?removed=1';
    }),
  ];
}
