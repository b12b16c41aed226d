import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { Services } from '../shared/services.ts';
import { frame } from './middlewares/frame.ts';
import { admission } from './middlewares/guard.ts';
import { jsonBodyOnly } from './middlewares/json-body.ts';
import { routeInput } from './middlewares/validate.ts';
import { buildOpenApi } from './openapi.ts';
import { pageRoutes } from './pages/router.ts';
import type { RouteContext, RouteDef, RouteInput } from './route.ts';
import { routes as defaultRoutes } from './routes/index.ts';

/**
 * Builds the Koa app: frame (request id, errors, rate headers, metrics, log) -> pages -> API routes, and per route
 * admission -> JSON-only check -> body -> validation -> handler. The body is parsed only once a route has
 * matched and admitted the caller: an unknown path or a refused caller costs no parsing.
 *
 * Every request pays for what runs before its handler, so the common path is kept short: a
 * route whose path has no parameters is found by one map look-up (the router walks every route's
 * pattern), a GET route has no body parser, and pages, which never live under /api/, are not
 * consulted for API paths.
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
  /**
   * One route's steps in one middleware, in order: its name (the metric label), admission, the
   * JSON-only check, the body (parsed only now, for methods that have one), validation, handler.
   * One function rather than a middleware per step: every request pays for each layer it passes.
   */
  const endpoint = (
    def: Pick<RouteDef, 'path' | 'method' | 'access' | 'request' | 'responses' | 'bodyLimit' | 'rawBody'>,
    handle: (ctx: RouteContext, input: RouteInput<unknown, unknown, unknown>) => Promise<void> | void,
  ): Middleware => {
    const admit = admission(def.access, services);
    // A JSON endpoint takes only JSON: 415 otherwise, as problem+json or, where the route
    // declares its own 415 body (MCP), as a JSON-RPC error.
    const jsonOnly = def.request?.body ? jsonBodyOnly(def.responses[415] ? 'jsonrpc' : 'problem') : undefined;
    // koa-body reads bodies of POST, PUT and PATCH only: elsewhere it would be a no-op per call.
    const parseBody =
      BODY_METHODS.has(def.method) && !def.rawBody
        ? bodyParser(def.bodyLimit ?? services.config.BODY_LIMIT)
        : undefined;
    const input = routeInput(def as RouteDef);
    // Steps that may wait (admission at the database, the JSON check, the body), in order.
    const waiting = async (ctx: RouteContext, admitting: Promise<void> | undefined) => {
      if (admitting) await admitting;
      if (jsonOnly) {
        let accepted = false;
        await jsonOnly(ctx, async () => {
          accepted = true;
        });
        if (!accepted) return; // answered (the JSON-RPC style 415)
      }
      if (parseBody) await parseBody(ctx, async () => {});
      const handled = handle(ctx, input(ctx));
      if (handled) await handled;
    };
    // An informational call admitted from the cached second, with no body, to a handler that
    // answers at once (most calls to /status) runs without a promise.
    return (rawCtx) => {
      const ctx = rawCtx as RouteContext;
      ctx.state.routeName = def.path;
      const admitting = admit(ctx);
      if (admitting || jsonOnly || parseBody) return waiting(ctx, admitting);
      return handle(ctx, input(ctx));
    };
  };

  router.get(
    '/openapi.json',
    endpoint({ path: '/openapi.json', method: 'get', access: { kind: 'public' }, responses: {} }, (ctx) => {
      ctx.body = openapi;
    }),
  );

  // Path without parameters -> method -> the route's endpoint, for the look-up that skips the router.
  const exact = new Map<string, Map<string, Middleware>>();
  for (const def of routes) {
    const run = endpoint(def, (ctx, input) =>
      def.handler(ctx, input as Parameters<RouteDef['handler']>[1], services),
    );
    router[def.method](def.path, run);
    if (!def.path.includes(':') && !def.path.includes('*')) {
      const byMethod = exact.get(def.path) ?? new Map<string, Middleware>();
      exact.set(def.path, byMethod);
      // The first route registered for a path and method wins, as in the router.
      if (!byMethod.has(def.method.toUpperCase())) byMethod.set(def.method.toUpperCase(), run);
    }
  }
  // A parameterised route registered earlier would take the path in the router: keep its order.
  for (const [path, byMethod] of exact) {
    for (const method of byMethod.keys()) {
      const first = router.match(path, method).pathAndMethod[0];
      if (first?.path !== path) byMethod.delete(method);
    }
  }
  const pages = pageRoutes(services); // pages for people: api/pages/router.ts
  // Pages (never under /api/), then the router, then its 405/501 answers.
  const routerRoutes = router.routes() as Middleware;
  const allowedMethods = router.allowedMethods() as Middleware;
  const routed: Middleware = (ctx, next) => routerRoutes(ctx, () => allowedMethods(ctx, next));
  const general: Middleware = (ctx, next) =>
    ctx.path.startsWith('/api/') ? routed(ctx, next) : pages(ctx, () => routed(ctx, next));

  // An API path without parameters runs its route straight away: no pages, no router walk, and
  // no allowedMethods step (it acts only on what the router matched, and this route's method is
  // one the router implements). The frame calls it directly, so a request passes one Koa
  // middleware: each layer of Koa's chain costs every request a bound function and a promise.
  const dispatch: Middleware = (ctx, next) => {
    const run = ctx.path.startsWith('/api/') ? exact.get(ctx.path)?.get(ctx.method) : undefined;
    if (!run) return general(ctx, next);
    ctx.params = {};
    return run(ctx, next);
  };
  app.use(frame(services, dispatch));
  return app;
}

const BODY_METHODS = new Set(['post', 'put', 'patch']);
