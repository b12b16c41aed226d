import Router from '@koa/router';
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { Services } from '../../shared/services.ts';
import { definePage, mountPages } from './page.ts';
import { agentSiteCitabilityRoutes } from './routes/agent-site-citability.ts';
import { agentSiteEventRoutes } from './routes/agent-site-events.ts';
import { agentSiteRoutes } from './routes/agent-sites.ts';
import { assetRoutes } from './routes/assets.ts';
import { auditRoutes } from './routes/audits.ts';
import { authRoutes } from './routes/auth.ts';
import { consoleRoutes } from './routes/console.ts';
import { geoRoutes } from './routes/geo.ts';
import { monitoredSiteRoutes } from './routes/monitored-site.ts';
import { siteRoutes } from './routes/monitored-sites.ts';
import { scanRoutes, scanStateRoute } from './routes/scan.ts';
import { serviceRoutes } from './routes/service.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { pageKit } from './web.ts';

/**
 * Every page for people, mounted by api/app.ts in one line: one file of page declarations
 * (`definePage`, page.ts) per group under routes/, each rendering with its *-pages.ts file and
 * calling the same shared/ functions as the REST handlers. web.ts holds what they share (session,
 * CSRF, headers, errors as pages).
 */
export function pageRoutes(services: Services): Middleware {
  const { config } = services;
  const router = new Router();
  // Forms are parsed only once a page route has matched (as API bodies are, after routing).
  router.use(
    koaBody({
      formLimit: config.BODY_LIMIT,
      jsonLimit: config.BODY_LIMIT,
      textLimit: config.BODY_LIMIT,
      multipart: false,
      onError: (err) => {
        throw err;
      },
    }),
  );
  const kit = pageKit(services);
  // Not pages (no session, no page headers): static assets and the progress poll's JSON.
  assetRoutes(router);
  scanStateRoute(router, kit);
  mountPages(router, kit, [
    ...scanRoutes(kit),
    ...authRoutes(kit),
    ...consoleRoutes(kit),
    ...siteRoutes(kit),
    ...monitoredSiteRoutes(kit),
    ...geoRoutes(kit),
    ...auditRoutes(kit),
    ...agentSiteRoutes(kit),
    ...agentSiteEventRoutes(kit),
    ...agentSiteCitabilityRoutes(kit),
    ...webhookRoutes(kit),
    ...serviceRoutes(kit),
    // Any other console address: a not-found page with the console's navigation (after sign-in).
    definePage({
      method: 'get',
      path: '/console/*rest',
      auth: 'signed-in',
      handler: async (ctx, web, _input, { notFoundPage }) => notFoundPage(ctx, web),
    }),
  ]);
  return router.routes() as Middleware;
}
