import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { Services } from '../shared/services.ts';
import { routeBody } from './middlewares/body.ts';
import { frame } from './middlewares/frame.ts';
import { guard } from './middlewares/guard.ts';
import { validate } from './middlewares/validate.ts';
import { buildOpenApi } from './openapi.ts';
import { errorPages } from './pages/error-pages.ts';
import { pageRoutes } from './pages/router.ts';
import type { RouteContext, RouteDef, RouteInput } from './route.ts';
import { routes as defaultRoutes } from './routes/index.ts';

/**
 * The Koa app, as ordinary middleware: frame (request id, errors, rate headers, metric, log) ->
 * error pages (for people, outside /api/) -> pages (never under /api/) -> router, and per route
 * (named by its pattern, the label of its metric and log line): guard (admission) -> body (JSON
 * only, parsed within the route's limit) -> validate -> handler. The body is parsed only once a
 * route has matched and admitted the caller: an unknown path or a refused caller costs no parsing.
 */
export function createApp(services: Services, routes: RouteDef[] = defaultRoutes): Koa {
  const app = new Koa({ proxy: services.config.TRUST_PROXY });
  app.silent = true; // errors are logged by the frame, once
  const router = new Router();
  const openapi = buildOpenApi(routes, services.config);
  router.get('/openapi.json', '/openapi.json', guard({ kind: 'public' }, services), (ctx) => {
    ctx.body = openapi;
  });
  for (const def of routes) {
    router[def.method](
      def.path, // the route's name: its pattern (observe.ts reads it as ctx.routerName)
      def.path,
      guard(def.access, services),
      ...routeBody(def, services.config),
      validate(def),
      (ctx) =>
        def.handler(
          ctx as RouteContext,
          (ctx as RouteContext).state.input as RouteInput<never, never, never>,
          services,
        ),
    );
  }
  const pages = pageRoutes(services); // pages for people: api/pages/router.ts
  app.use(frame(services));
  app.use(errorPages(services)); // errors as pages for people outside /api/: api/pages/error-pages.ts
  app.use((ctx, next) => (ctx.path.startsWith('/api/') ? next() : pages(ctx, next)));
  app.use(router.routes() as Middleware);
  app.use(router.allowedMethods() as Middleware);
  return app;
}
