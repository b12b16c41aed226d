import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { Services } from '../shared/services.ts';
import { errorHandler } from './middlewares/errors.ts';
import { guard, rateHeadersFallback } from './middlewares/guard.ts';
import { jsonBodyOnly } from './middlewares/json-body.ts';
import { observe } from './middlewares/observe.ts';
import { validate } from './middlewares/validate.ts';
import { buildOpenApi } from './openapi.ts';
import { pageRoutes } from './pages/router.ts';
import type { RouteContext, RouteDef } from './route.ts';
import { routes as defaultRoutes } from './routes/index.ts';

/**
 * Builds the Koa app: observe -> errors -> rate headers -> router, and per route
 * guard (admission) -> JSON-only check -> body -> validate -> handler. The body is parsed only once a route has
 * matched and admitted the caller: an unknown path or a refused caller costs no parsing.
 */
export function createApp(services: Services, routes: RouteDef[] = defaultRoutes): Koa {
  const app = new Koa({ proxy: services.config.TRUST_PROXY });
  app.silent = true; // errors are logged by our own middleware, once
  const router = new Router();
  const openapi = buildOpenApi(routes, services.config);
  // One parser per body limit: most routes take BODY_LIMIT, a few (collect) declare their own.
  const parsers = new Map<string, Middleware>();
  const bodyParser = (limit: string): Middleware => {
    let parser = parsers.get(limit);
    if (!parser) {
      parser = koaBody({
        jsonLimit: limit,
        formLimit: limit,
        textLimit: limit,
        multipart: false,
        jsonStrict: true,
        onError: (err) => {
          throw err;
        },
      }) as Middleware;
      parsers.set(limit, parser);
    }
    return parser;
  };
  const named = (name: string): Middleware => {
    return async (ctx, next) => {
      ctx.state.routeName = name;
      await next();
    };
  };

  router.get('/openapi.json', named('/openapi.json'), guard({ kind: 'public' }, services), (ctx) => {
    ctx.body = openapi;
  });

  for (const def of routes) {
    // A JSON endpoint takes only JSON: 415 otherwise, as problem+json or, where the route
    // declares its own 415 body (MCP), as a JSON-RPC error.
    const jsonOnly = def.request?.body ? [jsonBodyOnly(def.responses[415] ? 'jsonrpc' : 'problem')] : [];
    router[def.method](
      def.path,
      named(def.path),
      guard(def.access, services),
      ...jsonOnly,
      bodyParser(def.bodyLimit ?? services.config.BODY_LIMIT),
      validate(def),
      async (rawCtx) => {
        const ctx = rawCtx as RouteContext;
        const input = ctx.state.input as Parameters<RouteDef['handler']>[1];
        await def.handler(ctx, input, services);
      },
    );
  }

  app.use(observe(services.log));
  app.use(errorHandler(services.log));
  app.use(rateHeadersFallback(services));
  app.use(pageRoutes(services)); // pages for people: api/pages/router.ts
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
