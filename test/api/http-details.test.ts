import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recommendBundle } from '../../shared/audits/bundles.ts';
import { loadConfig } from '../../shared/config.ts';
import { call, startTestApi, type TestApi } from '../helpers/api.ts';
import { SpecChecker } from '../helpers/openapi.ts';

// HTTP details: a JSON endpoint refuses other body types with 415 (after admission, before any
// parsing), and a recommendation's stripeLink leads to a page that exists when no payment link
// is configured: with buying offline it says so, never a curl recipe.

let t: TestApi;
let spec: SpecChecker;

before(async () => {
  t = await startTestApi();
  spec = await SpecChecker.load(t.url);
});
after(async () => {
  await t.close();
});

const post = (path: string, body: string, headers: Record<string, string>, key?: string) =>
  call(t.url, path, { method: 'POST', body, headers, key });

describe('415 for a JSON endpoint sent another content type', () => {
  it('answers a form, text or untyped body with 415 problem+json; JSON (with a charset) passes', async () => {
    for (const type of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await post('/api/public/scan', 'url=example.com', { 'content-type': type });
      assert.equal(res.status, 415, `${type}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(res.body.code, 'unsupported_media_type');
      assert.match(res.body.detail, /Content-Type: application\/json, not /);
      spec.check('POST', '/api/public/scan', res);
    }
    const untyped = await fetch(`${t.url}/api/public/scan`, {
      method: 'POST',
      body: new Uint8Array([123, 125]),
    });
    assert.equal(untyped.status, 415);
    const json = await post('/api/public/scan', '{"url":"http://127.0.0.1:1/"}', {
      'content-type': 'application/json; charset=utf-8',
    });
    assert.equal(json.status, 400, 'parsed and validated: a private address');
    assert.equal(json.body.code, 'url_not_allowed');
    const empty = await call(t.url, '/api/public/scan', {
      method: 'POST',
      headers: { 'content-length': '0' },
    });
    assert.equal(empty.status, 400, 'no body: a validation error, not 415');
  });

  it('checks the caller first: a keyless form post to a key route is 401, with a key it is 415', async () => {
    const anon = await post('/api/v1/monitor/sites', 'url=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(anon.status, 401);
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const res = await post(
      '/api/v1/monitor/sites',
      'url=x',
      { 'content-type': 'application/x-www-form-urlencoded' },
      key,
    );
    assert.equal(res.status, 415);
    spec.check('POST', '/api/v1/monitor/sites', res);
  });

  it('answers MCP in JSON-RPC, as documented', async () => {
    const res = await post('/mcp', '{}', {
      'content-type': 'text/plain',
      accept: 'application/json, text/event-stream',
    });
    assert.equal(res.status, 415, res.text);
    assert.equal(res.body.jsonrpc, '2.0', res.text);
    assert.equal(res.body.error.code, -32000);
    spec.check('POST', '/mcp', res);
  });
});

describe('stripeLink without a payment link configured', () => {
  const dims = (scores: number[]) =>
    ['seo', 'speed', 'security', 'accessibility', 'mobile', 'content', 'conversion'].map((id, i) => ({
      id,
      name: id,
      score: scores[i]!,
    }));

  it('leads to a page of this server that lists the bundle and says buying is offline', async () => {
    const { STRIPE_LINK_COMPLETE: _c, STRIPE_LINK_FOCUS: _f, ...env } = process.env;
    const config = loadConfig(env);
    const prices = new Map([['seo_audit', 4900]]);
    for (const scores of [
      [10, 20, 30, 40, 90, 90, 90],
      [10, 80, 90, 60, 95, 20, 99],
    ]) {
      const rec = recommendBundle(dims(scores), prices, {
        ...config,
        STRIPE_LINK_COMPLETE: undefined,
        STRIPE_LINK_FOCUS: undefined,
      });
      const link = new URL(rec.stripeLink);
      assert.equal(link.origin, config.publicBaseUrl);
      const res = await fetch(t.url + link.pathname);
      assert.equal(res.status, 200, rec.stripeLink);
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      const page = await res.text();
      assert.match(page, new RegExp(`one-off, ${rec.products.length} audits`));
      assert.match(page, /Buying is offline on this server/);
      assert.doesNotMatch(page, /curl/);
      assert.doesNotMatch(page, /<script/i);
      assert.match(page, /font:16px\/1.55 system-ui,-apple-system,"Segoe UI"/, 'the style sheet as written');
    }
    const unknown = await fetch(`${t.url}/checkout/focus_bundle_seo_seo_seo`);
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /No such bundle/);
  });

  it('is the configured payment link when there is one', () => {
    const config = loadConfig({
      ...process.env,
      STRIPE_LINK_COMPLETE: 'https://buy.stripe.com/complete',
      STRIPE_LINK_FOCUS: 'https://buy.stripe.com/focus',
    });
    assert.equal(
      recommendBundle(dims([1, 1, 1, 1, 1, 1, 1]), new Map(), config).stripeLink,
      'https://buy.stripe.com/complete',
    );
    assert.match(
      recommendBundle(dims([1, 99, 99, 1, 99, 1, 99]), new Map(), config).stripeLink,
      /^https:\/\/buy\.stripe\.com\/focus\?bundle=focus_bundle_/,
    );
  });
});
