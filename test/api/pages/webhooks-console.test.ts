import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { startTestApi, type TestApi } from '../../helpers/api.ts';
import { signedInPerson } from '../../helpers/console.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

// B webhooks in the console do what /api/v1/webhooks does (Optimisation tier): add an endpoint
// (its secret shown once), send a signed test event the receiver verifies with that secret, see
// the delivery, disable and enable, rotate, remove. Lower tiers get a page that says why.

let t: TestApi;
let receiver: FixtureServer;
const received: { headers: Record<string, string>; body: string }[] = [];

before(async () => {
  receiver = await startFixtureServer({
    routes: {
      '/hooks': (req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          received.push({ headers: req.headers as Record<string, string>, body });
          res.writeHead(204).end();
        });
      },
    },
  });
  t = await startTestApi({ SCAN_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` });
});
after(async () => {
  await t?.close();
  await receiver?.close();
});

describe('B webhooks in the console', () => {
  it('adds, tests, disables, rotates and removes an endpoint', async () => {
    const me = await signedInPerson(t, 'hooks@console.test', { tier: 'optimisation' });
    const { site } = await registerSite(t.handle.db, {
      accountId: me.accountId,
      url: 'https://shop.example/',
      label: 'Shop',
    });
    const page = await me.get('/console/webhooks');
    assert.equal(page.status, 200);
    assert.match(page.text, /No webhook endpoints yet/);
    assert.match(page.text, new RegExp(`name="site_ids" value="${site.id}"`));

    const bad = await me.post('/console/webhooks', { url: `${receiver.origin}/hooks`, threshold: '0' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /whole number from 1 to 100/);
    const refused = await me.post('/console/webhooks', { url: 'http://127.0.0.1:1/hooks', threshold: '60' });
    assert.equal(refused.status, 400);

    const made = await me.post('/console/webhooks', {
      url: `${receiver.origin}/hooks`,
      threshold: '60',
      site_ids: String(site.id),
    });
    assert.equal(made.status, 201);
    const secret = /id="new-secret"[^>]*value="(whsec_[^"]+)"/.exec(made.text)?.[1];
    assert.ok(secret, 'the secret is shown once');
    const row = await t.handle.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual(row.site_ids, [String(site.id)]);
    assert.equal(row.threshold.overall, 60);
    assert.doesNotMatch((await me.get('/console/webhooks')).text, /whsec_/, 'never listed again');

    const tested = await me.post(`/console/webhooks/${row.id}/test`, {});
    assert.match(tested.text, /Test event delivered \(HTTP 204/);
    const got = received.at(-1)!;
    const verified = new Webhook(secret).verify(got.body, got.headers) as { event: string };
    assert.equal(verified.event, 'webhook.test');
    const deliveries = await me.get(`/console/webhooks/${row.id}`);
    assert.match(deliveries.text, /webhook\.test/);
    assert.match(deliveries.text, /delivered \(HTTP 204\)/);

    assert.equal(
      (await me.post(`/console/webhooks/${row.id}/disable`, {})).location,
      '/console/webhooks?notice=disabled',
    );
    assert.equal(
      (await t.handle.db.selectFrom('webhook_endpoints').select('enabled').executeTakeFirstOrThrow()).enabled,
      false,
    );
    await me.post(`/console/webhooks/${row.id}/enable`, {});
    const rotated = await me.post(`/console/webhooks/${row.id}/rotate`, {});
    const second = /id="new-secret"[^>]*value="(whsec_[^"]+)"/.exec(rotated.text)?.[1];
    assert.ok(second && second !== secret);

    const other = await signedInPerson(t, 'other-hooks@console.test', { tier: 'optimisation' });
    assert.equal((await other.get(`/console/webhooks/${row.id}`)).status, 404);
    assert.equal((await other.post(`/console/webhooks/${row.id}/remove`, {})).status, 404);

    assert.equal(
      (await me.post(`/console/webhooks/${row.id}/remove`, {})).location,
      '/console/webhooks?notice=removed',
    );
    assert.equal((await t.handle.db.selectFrom('webhook_endpoints').selectAll().execute()).length, 0);

    const lower = await signedInPerson(t, 'intel@console.test', { tier: 'intelligence' });
    const needTier = await lower.get('/console/webhooks');
    assert.equal(needTier.status, 403);
    assert.match(needTier.text, /Optimisation tier/);
  });
});
