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
    async handler(ctx) {
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
    },
  }),
];
