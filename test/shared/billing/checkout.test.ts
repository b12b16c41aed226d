import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { recommendBundle } from '../../../shared/audits/bundles.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { type SmtpServer, startSmtpServer } from '../../helpers/smtp-server.ts';
import { type SignedEvent, type StripeFake, startStripeFake } from '../../helpers/stripe-fake.ts';

// Checkout end to end against a loopback Stripe: a report's buy button opens a Checkout Session
// through the SDK (its metadata naming the bundle and the site), Stripe's signed
// checkout.session.completed places the paid orders for the buyer's (new) account and emails its
// key and the report links; a replay places nothing twice. A plan bought sets the plan, its
// subscription's deletion clears it. Nothing leaves 127.0.0.1.

const SECRET = 'whsec_test_sightline_billing';
let t: TestApi;
let stripe: StripeFake;
let smtp: SmtpServer;
let site: http.Server;
let siteUrl: string;

before(async () => {
  stripe = await startStripeFake();
  smtp = await startSmtpServer();
  site = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>shop</title>'),
  );
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  const port = (site.address() as AddressInfo).port;
  siteUrl = `http://127.0.0.1:${port}/`;
  t = await startTestApi({
    STRIPE_SECRET_KEY: 'sk_test_fake',
    STRIPE_WEBHOOK_SECRET: SECRET,
    STRIPE_API_BASE: stripe.url,
    SMTP_URL: smtp.url,
    SCAN_ALLOW_HOSTS: `127.0.0.1:${port}`,
  });
});
after(async () => {
  await t.close();
  await stripe.close();
  await smtp.close();
  site.closeAllConnections();
  site.close();
});

const deliver = (e: SignedEvent, signature = e.signature) =>
  call(t.url, '/webhooks/stripe', {
    method: 'POST',
    body: e.body,
    headers: { 'stripe-signature': signature },
  });

/** The checkout page's form, posted as a browser would. */
const postForm = (path: string, fields: Record<string, string>) =>
  fetch(t.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });

const dims = ['seo', 'speed', 'security', 'accessibility', 'mobile', 'content', 'conversion'].map(
  (id, i) => ({
    id,
    name: id,
    score: [20, 90, 30, 95, 40, 90, 99][i]!,
  }),
);

describe('checkout with Stripe', () => {
  it('buys a report’s bundle: session with metadata, signed completion, orders, key by email, replay-safe', async () => {
    const { loadConfig } = await import('../../../shared/config.ts');
    const config = loadConfig({
      ...process.env,
      STRIPE_SECRET_KEY: 'sk_test_fake',
      PORT: new URL(t.url).port,
    });
    const rec = recommendBundle(
      dims,
      new Map([
        ['seo_audit', 4900],
        ['security_audit', 4900],
        ['mobile_audit', 4900],
      ]),
      config,
      siteUrl,
    );
    const link = new URL(rec.stripeLink);
    assert.equal(link.searchParams.get('target_url'), siteUrl);
    const page = await fetch(t.url + link.pathname + link.search);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<form method="post" action="\/checkout\/focus_bundle_seo_security_mobile">/);
    assert.doesNotMatch(html, /curl/);
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      new RegExp(`form-action 'self' ${stripe.url}`),
    );

    const res = await postForm(link.pathname, { target_url: siteUrl });
    assert.equal(res.status, 303);
    const session = stripe.sessions.at(-1)!;
    assert.equal(res.headers.get('location'), session.url);
    assert.equal(session.authorization, 'Bearer sk_test_fake');
    assert.equal(session.mode, 'payment');
    assert.deepEqual(session.metadata, {
      sightline_kind: 'bundle',
      bundle: 'focus_bundle_seo_security_mobile',
      products: 'seo_audit,security_audit,mobile_audit',
      target_url: siteUrl,
    });
    const item = (
      session.params.line_items as { price_data: { unit_amount: string; currency: string } }[]
    )[0]!;
    assert.equal(item.price_data.currency, 'gbp');
    assert.equal(Number(item.price_data.unit_amount), rec.bundlePrice, 'the price the report shows');

    const back = await fetch(session.url, { redirect: 'manual' });
    assert.equal(
      new URL(back.headers.get('location')!).pathname,
      '/checkout/done',
      'Stripe sends the buyer back here',
    );
    assert.match(await (await fetch(`${t.url}/checkout/done`)).text(), /An email is on its way/);

    const email = `Buyer.${Date.now()}@Example.test`;
    const paid = stripe.completed(session, email, SECRET);
    const first = await deliver(paid);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { received: true, outcome: 'handled' });

    const account = await t.handle.db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', email.toLowerCase())
      .executeTakeFirstOrThrow();
    assert.equal(account.variant, 'A');
    assert.equal(account.tier, 'pro');
    const orders = await t.handle.db
      .selectFrom('audit_orders')
      .selectAll()
      .where('account_id', '=', account.id)
      .execute();
    assert.deepEqual(orders.map((o) => o.product).sort(), ['mobile_audit', 'security_audit', 'seo_audit']);
    assert.ok(orders.every((o) => o.target_url === siteUrl && o.status === 'paid'));

    const mail = await smtp.waitFor(email.toLowerCase(), /audits/);
    const key = /\n\s+(sl_live_[A-Za-z0-9]+)/.exec(mail.text)?.[1];
    assert.ok(key, `the key is in the mail:\n${mail.text}`);
    for (const o of orders)
      assert.ok(mail.text.includes(`/api/v1/audit/${o.id}/report?token=${o.report_token}`), o.product);
    const me = await call(t.url, `/api/v1/audit/${orders[0]!.id}`, { key });
    assert.equal(me.status, 200, 'the emailed key reads its order');
    assert.ok(!t.logs.join('').includes(key), 'the key is never logged');

    const replay = await deliver(paid);
    assert.deepEqual(replay.body, { received: true, outcome: 'duplicate' });
    const after = await t.handle.db
      .selectFrom('audit_orders')
      .select('id')
      .where('account_id', '=', account.id)
      .execute();
    assert.equal(after.length, 3, 'a replay places nothing');
    assert.equal(
      smtp.messages.filter((m) => m.to.includes(email.toLowerCase())).length,
      1,
      'and sends no second mail',
    );
  });

  it('opens no session for a site it may not scan, and says why on the page (422)', async () => {
    const before = stripe.sessions.length;
    for (const target of ['http://169.254.169.254/latest/meta-data/', 'not a url', '']) {
      const res = await postForm('/checkout/complete_audit_bundle', { target_url: target });
      assert.equal(res.status, 422, target);
      assert.match(await res.text(), /<p class="error" role="alert">/);
    }
    assert.equal(stripe.sessions.length, before);
  });

  it('refuses an unsigned or tampered event with problem+json 400', async () => {
    const e = stripe.completed(stripe.sessions[0]!, 'x@example.test', SECRET);
    const tampered = await call(t.url, '/webhooks/stripe', {
      method: 'POST',
      body: e.body.replace('x@example.test', 'y@example.test'),
      headers: { 'stripe-signature': e.signature },
    });
    assert.equal(tampered.status, 400);
    assert.match(tampered.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal(tampered.body.code, 'invalid_signature');
    const wrongSecret = stripe.completed(stripe.sessions[0]!, 'x@example.test', 'whsec_other');
    assert.equal((await deliver(wrongSecret)).status, 400);
    const none = await call(t.url, '/webhooks/stripe', { method: 'POST', body: e.body });
    assert.equal(none.status, 400);
    const count = await t.handle.db
      .selectFrom('accounts')
      .select('id')
      .where('email', 'in', ['x@example.test', 'y@example.test'])
      .execute();
    assert.equal(count.length, 0);
  });

  it('buys a plan for a signed-up account, and its subscription’s end clears the plan', async () => {
    const email = `plan.${Date.now()}@example.test`;
    const key = await t.newKey('A', 'free');
    await t.handle.db
      .updateTable('accounts')
      .set({ email: email.replace('plan.', 'PLAN.') })
      .where('id', '=', await accountOfKey(key))
      .execute();
    const page = await fetch(`${t.url}/checkout/plan/growth?email=${encodeURIComponent(email)}`);
    assert.match(await page.text(), /Subscribe for £29.00 a month/);
    const res = await postForm('/checkout/plan/growth', { email });
    assert.equal(res.status, 303);
    const session = stripe.sessions.at(-1)!;
    assert.equal(session.mode, 'subscription');
    assert.equal(session.customer_email, email);
    assert.deepEqual(session.metadata, { sightline_kind: 'plan', plan: 'growth' });
    assert.equal(
      (session.params.line_items as { price_data: { recurring: { interval: string } } }[])[0]!.price_data
        .recurring.interval,
      'month',
    );

    const paid = stripe.completed(session, email, SECRET);
    assert.equal((await deliver(paid)).status, 200);
    const subscription = () =>
      t.handle.db
        .selectFrom('subscriptions')
        .select(['plan', 'status'])
        .where('account_id', '=', accountId)
        .executeTakeFirst();
    const accountId = await accountOfKey(key);
    assert.deepEqual(await subscription(), { plan: 'growth', status: 'active' });
    const mail = await smtp.waitFor(email.replace('plan.', 'PLAN.'), /growth plan is active/);
    assert.match(mail.text, /existing Sightline account/, 'no new key for an existing account');

    const ended = stripe.subscriptionEvent(
      'customer.subscription.deleted',
      `sub_for_${session.id}`,
      'canceled',
      SECRET,
    );
    assert.deepEqual((await deliver(ended)).body, { received: true, outcome: 'handled' });
    assert.deepEqual(await subscription(), { plan: 'growth', status: 'canceled' });
    const renewed = stripe.subscriptionEvent(
      'customer.subscription.updated',
      `sub_for_${session.id}`,
      'active',
      SECRET,
    );
    assert.equal((await deliver(renewed)).body.outcome, 'handled');
    assert.deepEqual(await subscription(), { plan: 'growth', status: 'active' });
    const failed = stripe.invoiceEvent('invoice.payment_failed', `sub_for_${session.id}`, SECRET);
    assert.equal((await deliver(failed)).body.outcome, 'handled');
    assert.deepEqual(
      await subscription(),
      { plan: 'growth', status: 'canceled' },
      'a failed payment clears it',
    );
    const paidAgain = stripe.invoiceEvent('invoice.paid', `sub_for_${session.id}`, SECRET);
    assert.equal((await deliver(paidAgain)).body.outcome, 'handled');
    assert.deepEqual(await subscription(), { plan: 'growth', status: 'active' }, 'a renewal sets it again');
    const stranger = stripe.subscriptionEvent(
      'customer.subscription.deleted',
      'sub_elsewhere',
      'canceled',
      SECRET,
    );
    assert.equal((await deliver(stranger)).body.outcome, 'ignored');
  });
});

async function accountOfKey(key: string): Promise<string> {
  const res = await call(t.url, '/api/v1/account', { key });
  assert.equal(res.status, 200, res.text);
  return String(res.body.id ?? res.body.account_id);
}

describe('checkout with buying offline', () => {
  let offline: TestApi;
  before(async () => {
    offline = await startTestApi({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' });
  });
  after(() => offline.close());

  it('says plainly that buying is offline and how the operator enables it, never a curl recipe', async () => {
    for (const path of [
      '/checkout/complete_audit_bundle?target_url=https%3A%2F%2Fshop.example%2F',
      '/checkout/plan/agency',
    ]) {
      const res = await fetch(offline.url + path);
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /Buying is offline on this server/);
      assert.match(html, /STRIPE_SECRET_KEY/);
      assert.doesNotMatch(html, /curl|<form/);
      assert.doesNotMatch(html, /<script/i);
    }
    const post = await fetch(`${offline.url}/checkout/complete_audit_bundle`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'target_url=https%3A%2F%2Fshop.example%2F',
    });
    assert.equal(post.status, 200, 'the page answers: buying is offline');
    assert.match(await post.text(), /Buying is offline/);
    const hook = await call(offline.url, '/webhooks/stripe', {
      method: 'POST',
      body: '{}',
      headers: { 'stripe-signature': 't=1,v1=x' },
    });
    assert.equal(hook.status, 404);
    assert.equal(hook.body.code, 'webhook_not_configured');
  });
});
