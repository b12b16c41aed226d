import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthorized } from '../../../shared/errors.ts';
import { registry } from '../../../shared/metrics.ts';
import { defineRoute } from '../../route.ts';

// /openapi.json is filled in by the app (it needs the full route list); /metrics serves prom-client.
export default [
  defineRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    tags: ['Service'],
    access: { kind: 'public' },
    hidden: true,
    responses: { 200: { description: 'Prometheus text format', contentType: 'text/plain' } },
    async handler(ctx, _input, services) {
      // Open by default (a private network scrapes it); METRICS_TOKEN closes it to one bearer token.
      const token = services.config.METRICS_TOKEN;
      if (token && !safeEqual(ctx.get('authorization'), `Bearer ${token}`))
        throw unauthorized('/metrics needs the METRICS_TOKEN bearer token.');
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
    },
  }),
];

const digest = (s: string) => createHash('sha256').update(s).digest();
const safeEqual = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));
