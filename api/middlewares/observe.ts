import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { Logger } from '../../shared/logger.ts';
import { httpRequestDuration } from '../../shared/metrics.ts';

// Request id (taken from a sane incoming X-Request-Id or made here), one log line per request, and the duration histogram labelled by route pattern (never the raw path: bounded labels).
// Two steps of the outer middleware (frame.ts): one as a request arrives, one once it is answered.
const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Gives the request its id (state and X-Request-Id header); returns its start time. */
export function startRequest(ctx: Context): number {
  const incoming = ctx.req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  ctx.state.requestId = requestId;
  ctx.set('X-Request-Id', requestId);
  return performance.now();
}

/**
 * The duration histogram and the request's one log line: error with the stack for an unexpected
 * failure (noted by errors.ts), warn for any other 5xx (an answer given on purpose, such as a 503
 * while a dependency is missing), info otherwise; never a stack for an answer given on purpose.
 */
export function finishRequest(ctx: Context, log: Logger, startedAt: number): void {
  const seconds = (performance.now() - startedAt) / 1000;
  // Only route patterns become labels: anything no route matched (404, 405, a probe of a
  // random path) is one `unmatched` series, so callers cannot mint series or leak tokens.
  // A REST route's name is its pattern (api/app.ts); pages name theirs in ctx.state.
  const route =
    (ctx.state.routeName as string | undefined) ?? (ctx as { routerName?: string }).routerName ?? 'unmatched';
  httpRequestDuration.observe(route, ctx.method, ctx.status, seconds);
  const failure = ctx.state.failure as unknown;
  const level = failure !== undefined ? 'error' : ctx.status >= 500 ? 'warn' : 'info';
  // The line's object is built only when the level is on (a quiet log costs nothing per call).
  if (log.isLevelEnabled(level))
    log[level](
      {
        requestId: ctx.state.requestId,
        method: ctx.method,
        route,
        path: failure !== undefined ? ctx.path : undefined,
        status: ctx.status,
        code: ctx.state.problemCode,
        ms: Math.round(seconds * 1000),
        account: ctx.state.principal?.accountId,
        err: failure,
      },
      failure !== undefined ? 'request failed' : 'request',
    );
}
