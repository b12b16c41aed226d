import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { call, startTestApi, type TestApi } from '../helpers/api.ts';
import { SpecChecker } from '../helpers/openapi.ts';

let t: TestApi;
let spec: SpecChecker;

before(async () => {
  t = await startTestApi();
  spec = await SpecChecker.load(t.url);
});
after(() => t.close());

const rateHeaders = (h: Headers) => {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    assert.match(h.get(name) ?? '', /^\d+$/, `${name} present and numeric`);
  }
};

describe('public endpoints', () => {
  it('GET /api/v1/status answers operational with version and docs', async () => {
    const res = await call(t.url, '/api/v1/status');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['answerEngines', 'details', 'docs', 'status', 'version']);
    assert.equal(res.body.details.agentData.staleAfterDays, 30);
    assert.equal(res.body.status, 'operational');
    assert.equal(res.body.version, '1.0.0');
    assert.match(res.body.docs, /^http/);
    assert.match(res.headers.get('x-request-id') ?? '', /.{8,}/);
    rateHeaders(res.headers);
    spec.check('GET', '/api/v1/status', res);
  });

  it('GET /api/v1/products lists the 7 products with matching pounds and pence', async () => {
    const res = await call(t.url, '/api/v1/products');
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 7);
    const ids = res.body.map((p: { id: string }) => p.id);
    for (const id of [
      'seo_audit',
      'speed_audit',
      'security_audit',
      'accessibility_audit',
      'mobile_audit',
      'content_audit',
      'conversion_audit',
    ]) {
      assert.ok(ids.includes(id), id);
    }
    for (const p of res.body) {
      assert.match(p.price_gbp, /^\d+\.\d{2}$/);
      assert.equal(Math.round(Number(p.price_gbp) * 100), p.price_pence);
    }
    spec.check('GET', '/api/v1/products', res);
  });

  it('/openapi.json is a valid OpenAPI 3.1 document', async () => {
    const res = await call(t.url, '/openapi.json');
    assert.equal(res.body.openapi, '3.1.0');
    const result = await new Validator().validate(res.body);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    assert.ok(res.body.paths['/api/v1/account'].get.security.length > 0);
  });
});

describe('authentication', () => {
  it('GET /api/v1/account returns the account for an A key and a B key', async () => {
    const a = await t.newKey('A', 'pro', { plan: 'growth' });
    const b = await t.newKey('B', 'intelligence');
    const ra = await call(t.url, '/api/v1/account', { key: a });
    assert.equal(ra.status, 200);
    assert.equal(ra.body.variant, 'A');
    assert.equal(ra.body.tier, 'pro');
    assert.equal(ra.body.plan, 'growth');
    spec.check('GET', '/api/v1/account', ra);
    const rb = await call(t.url, '/api/v1/account', { key: b });
    assert.equal(rb.status, 200);
    assert.equal(rb.body.variant, 'B');
    assert.equal(rb.body.tier, 'intelligence');
    assert.equal(rb.body.plan, null);
    spec.check('GET', '/api/v1/account', rb);
  });

  it('answers 401 problem+json with rate headers for missing, malformed, unknown and revoked keys', async () => {
    const key = await t.newKey('A', 'free');
    // flip one body character: the checksum no longer matches
    const malformed = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    const unknown = 'sl_live_' + 'x'.repeat(40);
    await t.handle.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('display_prefix', '=', key.slice(0, 14))
      .execute();
    for (const k of [undefined, malformed, unknown, key, 'not-a-key']) {
      const res = await call(t.url, '/api/v1/account', { key: k });
      assert.equal(res.status, 401, `key ${k}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(res.body.code, 'unauthorized');
      assert.equal(res.body.status, 401);
      assert.ok(!('stack' in res.body));
      rateHeaders(res.headers);
      spec.check('GET', '/api/v1/account', res);
    }
  });
});

describe('errors', () => {
  it('unknown paths answer 404 problem+json', async () => {
    const res = await call(t.url, '/api/v1/nope');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'not_found');
    assert.equal(res.body.type, 'https://sightline.dev/problems/not_found');
  });

  it('a wrong method answers 405 with Allow', async () => {
    const res = await call(t.url, '/api/v1/status', { method: 'DELETE' });
    assert.equal(res.status, 405);
    assert.equal(res.body.code, 'method_not_allowed');
    assert.match(res.headers.get('allow') ?? '', /GET/);
  });
});

describe('metrics', () => {
  it('/metrics serves Prometheus text with the request histogram, closed by METRICS_TOKEN when set', async () => {
    const open = await call(t.url, '/metrics');
    assert.equal(open.status, 200);
    assert.match(open.text, /sightline_http_request_duration_seconds_bucket\{[^}]*route="\/api\/v1\/status"/);
    assert.match(open.text, /sightline_process_cpu_seconds_total/);
    const closed = await startTestApi({ METRICS_TOKEN: 'a-metrics-token-of-length' });
    try {
      assert.equal((await call(closed.url, '/metrics')).status, 401);
      const ok = await call(closed.url, '/metrics', {
        headers: { authorization: 'Bearer a-metrics-token-of-length' },
      });
      assert.equal(ok.status, 200);
    } finally {
      await closed.close();
    }
  });
});
