import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/logger.ts';
import { httpRequestDuration } from '../../shared/metrics.ts';

// Request id (taken from a sane incoming X-Request-Id or made here), one access-log line per
// request, and the duration histogram labelled by route pattern (never the raw path: bounded labels).
const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

export function observe(log: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      // Only route patterns become labels: anything no route matched (404, 405, a probe of a
      // random path) is one `unmatched` series, so callers cannot mint series or leak tokens.
      const route = (ctx.state.routeName as string | undefined) ?? 'unmatched';
      httpRequestDuration.observe({ route, method: ctx.method, status: String(ctx.status) }, seconds);
      const level = ctx.status >= 500 ? 'error' : 'info';
      // The line's object is built only when the level is on (a quiet log costs nothing per call).
      if (log.isLevelEnabled(level))
        log[level](
          {
            requestId,
            method: ctx.method,
            route,
            status: ctx.status,
            ms: Math.round(seconds * 1000),
            account: ctx.state.principal?.accountId,
          },
          'request',
        );
    }
  };
}
