import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { defineRoute } from '../../../api/route.ts';
import { createAccount } from '../../../shared/accounts/accounts.ts';
import type { Db } from '../../../shared/db/pool.ts';
import { call } from '../../helpers/api.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

// The guard, validation and error rendering exercised through real routes on a real app and
// database: routes declared here only to reach every branch (tier, variant, body limits, 500).

const routes = [
  defineRoute({
    method: 'post',
    path: '/t/pro-a',
    operationId: 'proA',
    summary: 'A pro+',
    tags: ['t'],
    access: { kind: 'key', variants: ['A'], tiers: ['pro', 'agent'] },
    request: { body: z.object({ url: z.string().url(), count: z.number().int().min(1) }) },
    responses: { 200: { description: 'ok' } },
    handler(ctx, input) {
      ctx.body = { echoed: input.body };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/t/b-only',
    operationId: 'bOnly',
    summary: 'B',
    tags: ['t'],
    access: { kind: 'key', variants: ['B'] },
    responses: { 200: { description: 'ok' } },
    handler(ctx) {
      ctx.body = { ok: true };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/t/ip',
    operationId: 'ip',
    summary: 'ip limited',
    tags: ['t'],
    access: { kind: 'ip', bucket: 't', ipLimit: 3 },
    request: { query: z.object({ n: z.coerce.number().int().max(5) }) },
    responses: { 200: { description: 'ok' } },
    handler(ctx, input) {
      ctx.body = { n: input.query.n };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/t/boom',
    operationId: 'boom',
    summary: 'throws',
    tags: ['t'],
    access: { kind: 'public' },
    responses: { 200: { description: 'ok' } },
    handler() {
      throw new Error('secret internal detail');
    },
  }),
];

let app: TestApp;
let base: string;
let handle: Db;

before(async () => {
  app = await startTestApp(routes, { env: { BODY_LIMIT: '2kb' } });
  ({ base, handle } = app);
});
after(() => app.close());

const key = async (variant: 'A' | 'B', tier: string) =>
  (await createAccount(handle.db, { email: `${Math.random()}@x.test`, variant, tier: tier as never })).key
    .key;

describe('guard', () => {
  it('403 tier_required for a tier below the endpoint', async () => {
    const res = await call(base, '/t/pro-a', {
      method: 'POST',
      key: await key('A', 'free'),
      body: { url: 'https://a.test', count: 1 },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'tier_required');
    assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  });

  it('403 variant_mismatch naming the endpoint variant, both ways', async () => {
    const a = await call(base, '/t/b-only', { key: await key('A', 'agent') });
    assert.equal(a.status, 403);
    assert.equal(a.body.code, 'variant_mismatch');
    assert.match(a.body.detail, /variant B/);
    const b = await call(base, '/t/pro-a', { method: 'POST', key: await key('B', 'optimisation'), body: {} });
    assert.equal(b.status, 403);
    assert.equal(b.body.code, 'variant_mismatch');
    assert.match(b.body.detail, /variant A/);
  });

  it('400 names every bad field', async () => {
    const res = await call(base, '/t/pro-a', {
      method: 'POST',
      key: await key('A', 'pro'),
      body: { url: 'nope', count: 0 },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'invalid_request');
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['body.count', 'body.url']);
  });

  it('400 for a body that is not JSON; 413 for one over the limit', async () => {
    const k = await key('A', 'pro');
    const bad = await call(base, '/t/pro-a', {
      method: 'POST',
      key: k,
      body: '{"url":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const big = await call(base, '/t/pro-a', {
      method: 'POST',
      key: k,
      body: { url: 'https://a.test', count: 1, pad: 'x'.repeat(5000) },
    });
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 'payload_too_large');
  });

  it('per-IP limits on keyless endpoints: 429 with Retry-After once spent', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await call(base, '/t/ip?n=1');
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    assert.equal(last!.headers.get('x-ratelimit-limit'), '3');
    assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
    assert.equal(last!.body.code, 'rate_limited');
  });

  it('500 is problem+json without internals', async () => {
    const res = await call(base, '/t/boom');
    assert.equal(res.status, 500);
    assert.equal(res.body.code, 'internal_error');
    assert.doesNotMatch(res.text, /secret internal detail|at .*\.ts/);
  });
});
