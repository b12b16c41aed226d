import { benchmarks, benchmarkTrends } from '../../../shared/agent-traffic/benchmarks.ts';
import { type Access, defineRoute } from '../../route.ts';
import { Benchmarks, BenchmarkTrends, TrendsQuery } from './schema.ts';

// Deployment-wide benchmarks (variant B): aggregates only, never another account's identifiable data.
const access: Access = { kind: 'key', variants: ['B'] };
const tags = ['Agent traffic'];

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/benchmarks',
    operationId: 'getBenchmarks',
    summary: 'Typical scores per dimension, your sites’ percentile ranks, agent-traffic distributions',
    tags,
    access,
    responses: { 200: { description: 'Benchmarks', schema: Benchmarks } },
    async handler(ctx, _input, services) {
      ctx.body = await benchmarks(services.db, ctx.state.principal!.accountId);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/benchmarks/trends',
    operationId: 'getBenchmarkTrends',
    summary: 'Weekly score percentiles and agent-traffic mix across the deployment',
    tags,
    access,
    request: { query: TrendsQuery },
    responses: { 200: { description: 'Weekly series', schema: BenchmarkTrends } },
    async handler(ctx, { query }, services) {
      ctx.body = await benchmarkTrends(services.db, query.weeks);
    },
  }),
];
