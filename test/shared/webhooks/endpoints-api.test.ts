import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// /api/v1/webhooks (variant B, optimisation tier) through the real API, with a receiver on
// 127.0.0.1 that the test's configuration allows (SCAN_ALLOW_HOSTS), like any public address.

let t: TestApi;
let spec: SpecChecker;
let receiver: http.Server;
let receiverUrl: string;
let key: string;
let accountId: string;
const received: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

before(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/fail') return res.writeHead(500).end();
      if (req.url === '/moved') return res.writeHead(302, { location: '/hooks' }).end();
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const port = (receiver.address() as AddressInfo).port;
  receiverUrl = `http://127.0.0.1:${port}`;
  t = await startTestApi({ SCAN_ALLOW_HOSTS: `127.0.0.1:${port}` });
  spec = await SpecChecker.load(t.url);
  key = await t.newKey('B', 'optimisation');
  accountId = String((await call(t.url, '/api/v1/account', { key })).body.id);
});
after(async () => {
  await t.close();
  await new Promise((r) => receiver.close(r));
});

const create = (body: unknown, k = key) => call(t.url, '/api/v1/webhooks', { method: 'POST', key: k, body });

describe('/api/v1/webhooks', () => {
  it('needs the optimisation tier: an intelligence key gets 403, an A key 403 variant_mismatch', async () => {
    const intelligence = await t.newKey('B', 'intelligence');
    for (const [method, path] of [
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks/1/test'],
    ] as const) {
      const res = await call(t.url, path, {
        method,
        key: intelligence,
        body: method === 'POST' ? { url: `${receiverUrl}/hooks` } : undefined,
      });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.code, 'tier_required');
    }
    const a = await call(t.url, '/api/v1/webhooks', { key: await t.newKey('A', 'agent') });
    assert.equal(a.status, 403);
    assert.equal(a.body.code, 'variant_mismatch');
    assert.equal((await call(t.url, '/api/v1/webhooks')).status, 401);
  });

  it('refuses a private-address URL with 400 url_not_allowed, and a bad threshold with 400', async () => {
    for (const url of [
      'http://10.0.0.7/hooks',
      'http://169.254.169.254/latest',
      'http://localhost:9/hooks',
      'http://127.0.0.1:1/hooks', // loopback, on a port the configuration does not allow
    ]) {
      const res = await create({ url });
      assert.equal(res.status, 400, url);
      assert.equal(res.body.code, 'url_not_allowed', url);
      spec.check('POST', '/api/v1/webhooks', res);
    }
    const bad = await create({ url: `${receiverUrl}/hooks`, threshold: { overall: 0, speed: 50 } });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors.some((e: { field: string }) => e.field.startsWith('body.threshold')));
    const empty = await create({ url: `${receiverUrl}/hooks`, threshold: {} });
    assert.equal(empty.status, 400);
  });

  it('create shows the whsec_ secret once; list, get and patch never do; delete removes', async () => {
    const { site } = await registerSite(t.handle.db, { accountId, url: 'https://docs.example.org/' });
    const res = await create({
      url: `${receiverUrl}/hooks`,
      site_ids: [Number(site.id)],
      threshold: { overall: 60, citability: 40 },
    });
    assert.equal(res.status, 201, res.text);
    spec.check('POST', '/api/v1/webhooks', res);
    const w = res.body;
    assert.match(w.secret, /^whsec_[A-Za-z0-9+/=]{32}$/);
    assert.equal(res.headers.get('location'), `/api/v1/webhooks/${w.id}`);
    assert.deepEqual(w.events, ['monitoring.alert']);
    assert.deepEqual(w.site_ids, [Number(site.id)]);
    assert.deepEqual(w.threshold, { overall: 60, citability: 40 });
    assert.equal(w.enabled, true);

    const list = await call(t.url, '/api/v1/webhooks', { key });
    assert.equal(list.status, 200);
    spec.check('GET', '/api/v1/webhooks', list);
    assert.ok(list.body.webhooks.some((x: { id: number }) => x.id === w.id));
    assert.ok(!list.text.includes('whsec_'), 'secrets are never listed');
    const one = await call(t.url, `/api/v1/webhooks/${w.id}`, { key });
    spec.check('GET', '/api/v1/webhooks/{id}', one);
    assert.equal(one.body.secret, undefined);

    const patched = await call(t.url, `/api/v1/webhooks/${w.id}`, {
      method: 'PATCH',
      key,
      body: { enabled: false, site_ids: 'all', threshold: { transactability: 30 } },
    });
    assert.equal(patched.status, 200, patched.text);
    spec.check('PATCH', '/api/v1/webhooks/{id}', patched);
    assert.equal(patched.body.enabled, false);
    assert.equal(patched.body.site_ids, null);
    assert.deepEqual(patched.body.threshold, { transactability: 30 });
    assert.equal(patched.body.secret, undefined);

    const privatePatch = await call(t.url, `/api/v1/webhooks/${w.id}`, {
      method: 'PATCH',
      key,
      body: { url: 'http://192.168.1.1/hooks' },
    });
    assert.equal(privatePatch.status, 400);
    assert.equal(privatePatch.body.code, 'url_not_allowed');

    const del = await call(t.url, `/api/v1/webhooks/${w.id}`, { method: 'DELETE', key });
    assert.equal(del.status, 204);
    assert.equal((await call(t.url, `/api/v1/webhooks/${w.id}`, { key })).status, 404);
  });

  it('site_ids must be sites of the account', async () => {
    const other = await t.newKey('B', 'optimisation');
    const otherAccount = String((await call(t.url, '/api/v1/account', { key: other })).body.id);
    const { site } = await registerSite(t.handle.db, {
      accountId: otherAccount,
      url: 'https://theirs.example/',
    });
    const res = await create({ url: `${receiverUrl}/hooks`, site_ids: [Number(site.id)] });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.site_ids');
  });

  it('POST /{id}/test sends a signed webhook.test the standardwebhooks package verifies, and reports it', async () => {
    const w = (await create({ url: `${receiverUrl}/hooks` })).body;
    received.length = 0;
    const res = await call(t.url, `/api/v1/webhooks/${w.id}/test`, { method: 'POST', key });
    assert.equal(res.status, 200, res.text);
    spec.check('POST', '/api/v1/webhooks/{id}/test', res);
    assert.equal(res.body.status, 'delivered');
    assert.equal(res.body.status_code, 204);
    assert.equal(res.body.event, 'webhook.test');
    assert.equal(res.body.error, null);
    assert.ok(res.body.duration_ms >= 0);

    assert.equal(received.length, 1);
    const got = received[0]!;
    assert.equal(got.path, '/hooks');
    assert.equal(got.headers['x-service-event'], 'webhook.test');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['webhook-id'], res.body.id);
    const payload = new Webhook(w.secret).verify(got.body, {
      'webhook-id': got.headers['webhook-id'] as string,
      'webhook-timestamp': got.headers['webhook-timestamp'] as string,
      'webhook-signature': got.headers['webhook-signature'] as string,
    }) as Record<string, unknown>;
    assert.equal(payload.event, 'webhook.test');
    assert.equal(payload.webhook_id, w.id);
    assert.ok(!/sightline/i.test(got.body), 'no vendor branding');

    const deliveries = await call(t.url, `/api/v1/webhooks/${w.id}/deliveries`, { key });
    assert.equal(deliveries.status, 200);
    spec.check('GET', '/api/v1/webhooks/{id}/deliveries', deliveries);
    assert.equal(deliveries.body.deliveries.length, 1);
    const d = deliveries.body.deliveries[0];
    assert.equal(d.id, res.body.id);
    assert.equal(d.status, 'delivered');
    assert.equal(d.status_code, 204);
    assert.equal(typeof d.duration_ms, 'number');
    assert.ok(d.finished_at);
  });

  it('rotate-secret issues a new secret: the next delivery verifies with it and not with the old one', async () => {
    const w = (await create({ url: `${receiverUrl}/hooks` })).body;
    const rotated = await call(t.url, `/api/v1/webhooks/${w.id}/rotate-secret`, { method: 'POST', key });
    assert.equal(rotated.status, 200);
    spec.check('POST', '/api/v1/webhooks/{id}/rotate-secret', rotated);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, w.secret);
    received.length = 0;
    await call(t.url, `/api/v1/webhooks/${w.id}/test`, { method: 'POST', key });
    const got = received[0]!;
    const headers = {
      'webhook-id': got.headers['webhook-id'] as string,
      'webhook-timestamp': got.headers['webhook-timestamp'] as string,
      'webhook-signature': got.headers['webhook-signature'] as string,
    };
    assert.doesNotThrow(() => new Webhook(rotated.body.secret).verify(got.body, headers));
    assert.throws(() => new Webhook(w.secret).verify(got.body, headers));
  });

  it('a failing or redirecting receiver is reported as failed, once, and the redirect is not followed', async () => {
    const failing = (await create({ url: `${receiverUrl}/fail` })).body;
    received.length = 0;
    const res = await call(t.url, `/api/v1/webhooks/${failing.id}/test`, { method: 'POST', key });
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.status_code, 500);
    assert.equal(res.body.error, 'HTTP 500');
    assert.equal(received.length, 1, 'one attempt, no retry');

    const moved = (await create({ url: `${receiverUrl}/moved` })).body;
    received.length = 0;
    const r = await call(t.url, `/api/v1/webhooks/${moved.id}/test`, { method: 'POST', key });
    assert.equal(r.body.status, 'failed');
    assert.equal(r.body.status_code, 302);
    assert.match(r.body.error, /redirects are not followed/);
    assert.deepEqual(
      received.map((x) => x.path),
      ['/moved'],
    );
    const listed = await call(t.url, `/api/v1/webhooks/${moved.id}/deliveries`, { key });
    assert.equal(listed.body.deliveries[0].status, 'failed');
  });

  it("another account's webhooks are 404 on every operation", async () => {
    const mine = (await create({ url: `${receiverUrl}/hooks` })).body;
    const other = await t.newKey('B', 'optimisation');
    for (const [method, path, body] of [
      ['GET', `/api/v1/webhooks/${mine.id}`, undefined],
      ['PATCH', `/api/v1/webhooks/${mine.id}`, { enabled: false }],
      ['DELETE', `/api/v1/webhooks/${mine.id}`, undefined],
      ['POST', `/api/v1/webhooks/${mine.id}/test`, undefined],
      ['POST', `/api/v1/webhooks/${mine.id}/rotate-secret`, undefined],
      ['GET', `/api/v1/webhooks/${mine.id}/deliveries`, undefined],
    ] as const) {
      const res = await call(t.url, path, { method, key: other, body });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.code, 'not_found');
    }
    const theirList = await call(t.url, '/api/v1/webhooks', { key: other });
    assert.deepEqual(theirList.body.webhooks, []);
    const still = await call(t.url, `/api/v1/webhooks/${mine.id}`, { key });
    assert.equal(still.status, 200);
    assert.equal(still.body.enabled, true);
  });
});
