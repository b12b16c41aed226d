import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { auditJobKey } from '../../../shared/audits/jobs.ts';
import { loadConfig } from '../../../shared/config.ts';
import { startWorker } from '../../../worker/runner.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { signedInPerson } from '../../helpers/console.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { type StripeFake, startStripeFake } from '../../helpers/stripe-fake.ts';

// Ordering audits in the console: a Pro account orders through placeOrder (as POST /api/v1/audit)
// and follows the order; a free account pays through a Stripe Checkout Session (the loopback fake)
// whose signed completion places the order on its account; bad input is named on the page; with
// Stripe not configured the page says buying is offline and orders nothing.

const SECRET = 'whsec_test_console_audits';
let site: FixtureServer;
let stripe: StripeFake;
let t: TestApi;

before(async () => {
  site = await startFixtureServer({
    routes: {
      '/': (_q, r) =>
        r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Shop</title><h1>Shop</h1>'),
      '/hooks/audits': (req, r) => {
        req.resume();
        req.on('end', () => r.writeHead(204).end());
      },
    },
  });
  stripe = await startStripeFake();
  t = await startTestApi({
    STRIPE_SECRET_KEY: 'sk_test_fake',
    STRIPE_WEBHOOK_SECRET: SECRET,
    STRIPE_API_BASE: stripe.url,
    SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    AUDIT_FULL_PAGES: '0',
  });
});
after(async () => {
  await t?.close();
  await stripe?.close();
  await site?.close();
});

const formToken = (page: string) => /name="form_token" value="([^"]+)"/.exec(page)?.[1] ?? '';

const ordersOf = (accountId: string) =>
  t.handle.db.selectFrom('audit_orders').selectAll().where('account_id', '=', accountId).execute();

describe('audits in the console', () => {
  it('a Pro account orders an audit on its tier, once per form, and follows the order', async () => {
    const me = await signedInPerson(t, 'pro@audits.test', { tier: 'pro' });
    const page = await me.get('/console/audits');
    assert.equal(page.status, 200);
    assert.match(page.text, /<form method="post" action="\/console\/audits">/);
    assert.match(page.text, /SEO Audit, £49\.00/);
    assert.match(page.text, /Your pro tier includes audit orders/);
    assert.match(page.text, />Order the audit</);
    assert.doesNotMatch(page.text, /name="webhook_url"/, 'webhooks are the Agent tier’s');
    assert.doesNotMatch(page.text, /curl/);

    const form = { product: 'seo_audit', target_url: site.url, form_token: formToken(page.text) };
    const placed = await me.post('/console/audits', form);
    assert.equal(placed.status, 303, placed.text.slice(0, 800));
    const id = /^\/console\/audits\/(ao_[\w-]+)$/.exec(placed.location ?? '')?.[1];
    assert.ok(id, placed.location ?? '');
    const again = await me.post('/console/audits', form);
    assert.equal(again.location, placed.location, 'the same form sent twice places one order');
    const orders = await ordersOf(me.accountId);
    assert.equal(orders.length, 1);
    assert.equal(orders[0]!.product, 'seo_audit');
    assert.equal(orders[0]!.target_url, site.url);
    assert.equal(orders[0]!.status, 'paid');
    const { rows: jobs } =
      await sql`select task_identifier from graphile_worker.jobs where key = ${auditJobKey(id)}`.execute(
        t.handle.db,
      );
    assert.deepEqual(jobs, [{ task_identifier: 'generate_audit' }], 'its job is queued with it');

    const follow = await me.get(`/console/audits/${id}`);
    assert.equal(follow.status, 200);
    assert.match(follow.text, /SEO Audit <span class="pill paid">paid<\/span>/);
    assert.match(follow.text, /Waiting for a free worker/);
    assert.match(follow.text, /<meta http-equiv="refresh" content="5">/);
    assert.match((await me.get('/console/audits')).text, new RegExp(`href="/console/audits/${id}"`));

    const other = await signedInPerson(t, 'other@audits.test', { tier: 'pro' });
    assert.equal((await other.get(`/console/audits/${id}`)).status, 404);
    assert.equal((await other.get('/console/audits/ao_nope')).status, 404);
  });

  it('names bad input on the page and orders nothing', async () => {
    const me = await signedInPerson(t, 'typo@audits.test', { tier: 'pro' });
    const cases: [Record<string, string>, RegExp][] = [
      [{ product: 'nope_audit', target_url: site.url }, /Choose one of the audits above/],
      [{ product: 'seo_audit', target_url: ' ' }, /Enter the address of the site to audit/],
      [{ product: 'seo_audit', target_url: 'http://169.254.169.254/latest/' }, /role="alert"|field-error/],
    ];
    for (const [form, re] of cases) {
      const res = await me.post('/console/audits', form);
      assert.equal(res.status, 422, JSON.stringify(form));
      assert.match(res.text, re);
      assert.match(res.text, /aria-invalid="true"/);
    }
    assert.equal((await ordersOf(me.accountId)).length, 0);
  });

  it('a free account pays through Stripe Checkout; the signed completion places the order on its account', async () => {
    const email = 'free@audits.test';
    const me = await signedInPerson(t, email, { tier: 'free' });
    const page = await call(t.url, '/console/audits', {
      headers: { accept: 'text/html', cookie: me.cookie },
    });
    assert.match(page.text, />Pay with Stripe</);
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      new RegExp(`form-action 'self' ${stripe.url}`),
    );

    const before = stripe.sessions.length;
    const paying = await me.post('/console/audits', { product: 'mobile_audit', target_url: site.url });
    assert.equal(paying.status, 303, paying.text.slice(0, 800));
    assert.equal(stripe.sessions.length, before + 1);
    const session = stripe.sessions.at(-1)!;
    assert.equal(paying.location, session.url);
    assert.deepEqual(session.metadata, {
      sightline_kind: 'audit',
      product: 'mobile_audit',
      target_url: site.url,
    });
    assert.equal(session.customer_email, email, 'paid with the signed-in address');
    assert.equal(session.mode, 'payment');
    const item = (session.params.line_items as { price_data: { unit_amount: string } }[])[0]!;
    assert.equal(Number(item.price_data.unit_amount), 3900, 'the catalogue price');
    assert.match(session.success_url, /\/console\/audits\?notice=paid$/);
    assert.equal((await ordersOf(me.accountId)).length, 0, 'nothing is placed before Stripe confirms');

    const back = await me.get('/console/audits?notice=paid');
    assert.match(back.text, /Payment received/);
    assert.match(back.text, /<meta http-equiv="refresh" content="4;url=\/console\/audits">/);

    const paid = stripe.completed(session, email, SECRET);
    const res = await call(t.url, '/webhooks/stripe', {
      method: 'POST',
      body: paid.body,
      headers: { 'stripe-signature': paid.signature },
    });
    assert.equal(res.status, 200, res.text);
    const orders = await ordersOf(me.accountId);
    assert.equal(orders.length, 1);
    assert.equal(orders[0]!.product, 'mobile_audit');
    assert.equal(orders[0]!.target_url, site.url);
    assert.match(
      (await me.get('/console/audits')).text,
      new RegExp(`href="/console/audits/${orders[0]!.id}"`),
    );

    const refused = await me.post('/console/audits', { product: 'seo_audit', target_url: 'not a url' });
    assert.equal(refused.status, 422);
    assert.equal(stripe.sessions.length, before + 1, 'no session for an address it may not scan');
  });
});

describe('audits in the console for an Agent account', () => {
  it('orders with a webhook, shows its signing secret and, once a worker delivers the report, each attempt', async () => {
    const me = await signedInPerson(t, 'agent@audits.test', { tier: 'agent' });
    const page = await me.get('/console/audits');
    assert.match(page.text, /name="webhook_url"/, 'the Agent tier may give a webhook');

    const refused = await me.post('/console/audits', {
      product: 'seo_audit',
      target_url: site.url,
      webhook_url: 'http://169.254.169.254/hook',
    });
    assert.equal(refused.status, 422);
    assert.match(refused.text, /id="webhook-url"[^>]*aria-invalid="true"/);
    assert.match(refused.text, /value="http:\/\/169\.254\.169\.254\/hook"/, 'what was typed stays');

    const hook = `${site.origin}/hooks/audits`;
    const placed = await me.post('/console/audits', {
      product: 'seo_audit',
      target_url: site.url,
      webhook_url: hook,
      form_token: formToken(page.text),
    });
    assert.equal(placed.status, 303, placed.text.slice(0, 800));
    const [order] = await ordersOf(me.accountId);
    assert.equal(order!.webhook_url, hook);
    const { webhook_secret } = await t.handle.db
      .selectFrom('accounts')
      .select('webhook_secret')
      .where('id', '=', me.accountId)
      .executeTakeFirstOrThrow();
    const before = await me.get(placed.location!);
    assert.ok(
      webhook_secret && before.text.includes(webhook_secret),
      'the signing secret, as the API returns it',
    );
    assert.match(before.text, /No attempt yet/);

    const worker = await startWorker(
      loadConfig({
        ...process.env,
        LOG_LEVEL: 'silent',
        AUDIT_FULL_PAGES: '0',
        SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
      }),
      t.database.url,
      { metricsPort: null, crontab: null },
    );
    try {
      const deadline = Date.now() + 60_000;
      let text = '';
      while (!/audit\.delivered<\/td><td data-label="Outcome">delivered \(HTTP 204\)/.test(text)) {
        assert.ok(Date.now() < deadline, `no delivery shown:\n${text.slice(0, 3000)}`);
        await new Promise((r) => setTimeout(r, 300));
        text = (await me.get(placed.location!)).text;
      }
      assert.match(text, /Open the report/);
      assert.ok(site.hits.some((h) => h.method === 'POST' && h.url === '/hooks/audits'));
    } finally {
      await worker.close();
    }
  });
});

describe('audits in the console with buying offline', () => {
  let off: TestApi;
  before(async () => {
    off = await startTestApi({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
  });
  after(async () => {
    await off?.close();
  });

  it('says plainly that buying is offline (never a curl recipe) and orders nothing', async () => {
    const me = await signedInPerson(off, 'offline@audits.test', { tier: 'free' });
    const page = await me.get('/console/audits');
    assert.equal(page.status, 200);
    assert.match(page.text, /Buying is offline on this server/);
    assert.match(page.text, /STRIPE_SECRET_KEY/);
    assert.match(page.text, /SEO Audit<\/strong>, £49\.00/);
    assert.doesNotMatch(page.text, /curl|action="\/console\/audits"/);
    const posted = await me.post('/console/audits', { product: 'seo_audit', target_url: site.url });
    assert.equal(posted.status, 503);
    assert.match(posted.text, /nothing was ordered/);
    const orders = await off.handle.db.selectFrom('audit_orders').select('id').execute();
    assert.equal(orders.length, 0);
  });
});
