import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import {
  assertFitsPhone,
  type BrowserStack,
  chromiumPath,
  PHONE_WIDTH,
  startBrowserStack,
} from '../../helpers/browser-stack.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { type FakeSession, type StripeFake, startStripeFake } from '../../helpers/stripe-fake.ts';

// The A walk, as a new customer does it in real Chromium at a phone's width, against the API and
// a real worker: sign up -> confirm by the emailed link -> buy the Growth plan through Stripe
// Checkout (the loopback fake; its signed checkout.session.completed sent to /webhooks/stripe, as
// Stripe would) -> add a site (a fixture server) -> scan now -> see the history -> order an audit
// (paid through Stripe the same way) -> follow it and read the report -> run a GEO check. Scans
// are quick and audits crawl without a browser, so the walk takes well under a minute of work.

const PASSWORD = 'correct horse battery staple';
const STRIPE_WEBHOOK_SECRET = 'whsec_test_walk_a';
/** With CONSOLE_SCREENSHOTS_DIR set, the audit pages are photographed (docs/console.md uses them). */
const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;

describe('walk A: from sign-up to a paying customer', { skip: skipUnlessBrowser(chromiumPath) }, () => {
  let site: FixtureServer;
  let stripe: StripeFake;
  let stack: BrowserStack;

  before(async () => {
    site = await startFixtureServer({ root: path.resolve('test/fixtures/sites/quick-site') });
    stripe = await startStripeFake();
    stack = await startBrowserStack(
      {
        STRIPE_SECRET_KEY: 'sk_test_walk',
        STRIPE_WEBHOOK_SECRET,
        STRIPE_API_BASE: stripe.url,
        SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
        MONITOR_SCAN_MODE: 'quick',
        AUDIT_FULL_PAGES: '0',
        AUDIT_MAX_PAGES: '5',
      },
      { worker: true },
    );
  });
  after(async () => {
    await stack?.close();
    await stripe?.close();
    await site?.close();
  });

  async function shot(page: Page, name: string) {
    if (!SHOTS) return;
    fs.mkdirSync(SHOTS, { recursive: true });
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({
      path: path.join(SHOTS, `${name}.png`),
      fullPage: true,
      clip: { x: 0, y: 0, width: PHONE_WIDTH, height: Math.min(height, 1400) },
    });
  }

  /** Stripe's confirmation of a paid session, signed as Stripe signs it, to our webhook. */
  async function stripeConfirms(session: FakeSession, email: string) {
    const event = stripe.completed(session, email, STRIPE_WEBHOOK_SECRET);
    const res = await fetch(`${stack.t.url}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      body: event.body,
    });
    assert.equal(res.status, 200, await res.text());
  }

  /** Reloads until `text` shows (the pages refresh themselves too; this is quicker). */
  async function reloadUntil(page: Page, text: RegExp | string, timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await page.getByText(text).count()) > 0) return;
      assert.ok(Date.now() < deadline, `${page.url()} never showed ${text}`);
      await page.waitForTimeout(500);
      await page.reload();
    }
  }

  it('signs up, buys a plan, monitors a site, buys and reads an audit, and runs a GEO check', async () => {
    const { smtp } = stack;
    const ctx = await stack.phone();
    const page = await ctx.newPage();
    const email = 'walker@shop.test';

    // Sign up, and confirm with the link the loopback SMTP server received.
    await page.goto('/signup');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    const confirm = await smtp.waitFor(email, /Confirm your Sightline account/);
    const link = /http:\/\/\S+\/signup\/confirm\/\S+/.exec(confirm.text)?.[0];
    assert.ok(link, confirm.text);
    await page.goto(link);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('heading', { name: 'Welcome to Sightline' }).waitFor();

    // Buy the Growth plan: the console's button, our plan page, Stripe Checkout, back here.
    await page.goto('/console/sites');
    await assertFitsPhone(page);
    await page.getByRole('link', { name: 'Buy Growth' }).click();
    await page.getByRole('button', { name: /Subscribe for £29\.00 a month with Stripe/ }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor();
    const plan = stripe.sessions.at(-1)!;
    assert.equal(plan.mode, 'subscription');
    assert.equal(plan.customer_email, email);
    await stripeConfirms(plan, email);
    await smtp.waitFor(email, /growth monitoring plan is active/);

    // Add the site, scan it now, and see its history.
    await page.goto('/console/sites');
    await page.getByText('Growth plan').first().waitFor();
    await page.getByLabel('Address').fill(site.url);
    await page.getByLabel('Label (optional)').fill('Quick site');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByText('Added Quick site').waitFor();
    await assertFitsPhone(page);
    await page.getByRole('link', { name: 'Quick site' }).click();
    await page.getByRole('button', { name: 'Scan now' }).click();
    await page.getByText('Scan queued').waitFor();
    await reloadUntil(page, 'Scores as a table');
    await page.getByText('Scores as a table').click();
    assert.equal(await page.locator('.history-table tbody tr').count(), 1, 'one scan in the history');
    const overall = await page.locator('.history-table tbody tr td').nth(1).textContent();
    assert.match(overall ?? '', /^\d{1,3}$/, 'the scan has an overall score');
    await assertFitsPhone(page);
    const sitePage = page.url();

    // Order an audit: a free-tier account pays for it through Stripe Checkout.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: 'Order an audit' }).click();
    await assertFitsPhone(page);
    await page.getByLabel(/SEO Audit, £49\.00/).check();
    await page.getByLabel('Site to audit').fill(site.url);
    await page.getByRole('button', { name: 'Pay with Stripe' }).click();
    await page.getByText('Payment received').waitFor();
    const audit = stripe.sessions.at(-1)!;
    assert.deepEqual(audit.metadata, { sightline_kind: 'audit', product: 'seo_audit', target_url: site.url });
    await stripeConfirms(audit, email);
    await reloadUntil(page, 'SEO Audit');
    await page.getByRole('link', { name: 'SEO Audit' }).click();
    await page.getByRole('heading', { name: /SEO Audit/ }).waitFor();
    await assertFitsPhone(page);
    await reloadUntil(page, 'Open the report');
    assert.match((await page.locator('h1').textContent()) ?? '', /delivered/);
    await assertFitsPhone(page);
    await shot(page, 'console-audit');
    await page.getByRole('link', { name: 'Open the report' }).click();
    await page.getByRole('heading', { name: `127.0.0.1:${site.port}`, level: 1 }).waitFor();
    assert.match(await page.title(), /SEO Audit/);
    await assertFitsPhone(page);
    await page.goto('/console/audits');
    await shot(page, 'console-audits');

    // A GEO check of the monitored site.
    await page.goto(sitePage);
    await page.getByRole('link', { name: /GEO: answer-engine visibility/ }).click();
    await page.getByRole('button', { name: 'Run a GEO check' }).click();
    await reloadUntil(page, /^GEO check \d+\/\d+/);
    await assertFitsPhone(page);
    await ctx.close();
  });
});
