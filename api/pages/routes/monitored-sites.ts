import type Router from '@koa/router';
import type { Context } from 'koa';
import { activeSubscription } from '../../../shared/accounts/accounts.ts';
import { rotateStatusToken } from '../../../shared/accounts/status-token.ts';
import { AppError } from '../../../shared/errors.ts';
import { recentAlerts, sitesWithHistory } from '../../../shared/monitoring/history.ts';
import { addSite, statusPageUrl } from '../../../shared/monitoring/sites.ts';
import { renderNoPlan, renderSites } from '../console-pages.ts';
import { accountOf, formOf, html200, isVariant, type PageKit, viewerOf, type Web } from '../web.ts';

// Monitoring in the console (variant A): the account's monitored sites with their history and
// alerts, adding a site, one site's page, and a new status-page link.

export function siteRoutes(router: Router, { services, signedIn, notFoundPage }: PageKit): void {
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

  router.get(
    '/console/sites',
    signedIn(async (ctx, web) =>
      isVariant(web, 'A')
        ? sitesPage(ctx, web, ctx.query.removed === '1' ? { removed: true } : undefined)
        : notFoundPage(ctx, web),
    ),
  );
  router.post(
    '/console/sites',
    signedIn(async (ctx, web) => {
      if (!isVariant(web, 'A')) return notFoundPage(ctx, web);
      const f = formOf(ctx);
      const siteType = f.site_type === 'competitor' ? 'competitor' : 'own';
      const label = f.label?.trim() || undefined;
      try {
        const site = await addSite(services, accountOf(web), { url: f.url ?? '', label, siteType });
        await sitesPage(ctx, web, { added: site.label }, 201);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        await sitesPage(ctx, web, { url: f.url, label: f.label, siteType, error: err.detail }, err.status);
      }
    }),
  );
  router.post(
    '/console/sites/status-link',
    signedIn(async (ctx, web) => {
      if (!isVariant(web, 'A')) return notFoundPage(ctx, web);
      const token = await rotateStatusToken(db, accountOf(web));
      await sitesPage(ctx, web, undefined, 200, token ? statusPageUrl(config, token) : undefined);
    }),
  );
}
