import type { Context } from 'koa';
import { z } from 'zod';
import { activeSubscription } from '../../../shared/accounts/accounts.ts';
import { rotateStatusToken } from '../../../shared/accounts/status-token.ts';
import { AppError } from '../../../shared/errors.ts';
import { recentAlerts, sitesWithHistory } from '../../../shared/monitoring/history.ts';
import { addSite, statusPageUrl } from '../../../shared/monitoring/sites.ts';
import { renderNoPlan, renderSites } from '../console-pages.ts';
import { definePage, type PageDef } from '../page.ts';
import { accountOf, html200, type PageKit, viewerOf, type Web } from '../web.ts';

// Monitoring in the console (variant A): the account's monitored sites with their history and
// alerts, adding a site, and a new status-page link (one site's page: monitored-site.ts).

const SiteForm = z.object({
  url: z.string().default(''),
  label: z.string().optional(),
  site_type: z
    .string()
    .optional()
    .transform((v) => (v === 'competitor' ? 'competitor' : 'own')),
});

export function siteRoutes({ services }: PageKit): PageDef[] {
  const { db, config } = services;

  const sitesPage = async (
    ctx: Context,
    web: Web,
    form?: Parameters<typeof renderSites>[1]['form'],
    status = 200,
    newStatusUrl?: string,
  ) => {
    const accountId = accountOf(web);
    const sub = await activeSubscription(db, accountId);
    if (!sub) return html200(ctx, renderNoPlan(viewerOf(web)));
    html200(
      ctx,
      renderSites(viewerOf(web), {
        sites: await sitesWithHistory(db, accountId),
        quota: sub.site_quota,
        plan: sub.plan,
        scanFrequency: sub.scan_frequency,
        statusPage: { prefix: sub.status_token_prefix, newUrl: newStatusUrl },
        alerts: await recentAlerts(db, accountId),
        form,
      }),
      status,
    );
  };

  return [
    definePage({
      method: 'get',
      path: '/console/sites',
      auth: 'A',
      handler: async (ctx, web) =>
        sitesPage(ctx, web, ctx.query.removed === '1' ? { removed: true } : undefined),
    }),
    definePage({
      method: 'post',
      path: '/console/sites',
      auth: 'A',
      form: SiteForm,
      handler: async (ctx, web, { form: f }) => {
        const siteType = f.site_type;
        const label = f.label?.trim() || undefined;
        try {
          const site = await addSite(services, accountOf(web), { url: f.url, label, siteType });
          await sitesPage(ctx, web, { added: site.label }, 201);
        } catch (err) {
          if (!(err instanceof AppError) || err.status >= 500) throw err;
          await sitesPage(ctx, web, { url: f.url, label: f.label, siteType, error: err.detail }, err.status);
        }
      },
    }),
    definePage({
      method: 'post',
      path: '/console/sites/status-link',
      auth: 'A',
      handler: async (ctx, web) => {
        const token = await rotateStatusToken(db, accountOf(web));
        await sitesPage(ctx, web, undefined, 200, token ? statusPageUrl(config, token) : undefined);
      },
    }),
  ];
}
