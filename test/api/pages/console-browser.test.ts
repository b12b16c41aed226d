import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { BrowserContext, Page } from 'playwright-core';
import { main } from '../../../cli/main.ts';
import { setSubscription } from '../../../shared/accounts/accounts.ts';
import { loadConfig, resetConfig } from '../../../shared/config.ts';
import { createLogger } from '../../../shared/logger.ts';
import { createMailer } from '../../../shared/people/mail.ts';
import { acceptInvite, createInvite, takeAuthAttempt } from '../../../shared/people/people.ts';
import { call, type TestApi } from '../../helpers/api.ts';
import {
  assertFitsPhone,
  type BrowserStack,
  chromiumPath,
  PHONE_WIDTH,
  startBrowserStack,
} from '../../helpers/browser-stack.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import type { SmtpServer } from '../../helpers/smtp-server.ts';

// The web face in real Chromium at a phone's width (375 px): sign-up by email, keys made and
// revoked in the console and used against the REST API, a B invitation from the CLI, the free scan
// at `/`, CSRF and rate limits, and one account's session walking another account's console URLs.
// Mail goes through nodemailer to a loopback SMTP server. With CONSOLE_SCREENSHOTS_DIR set, the
// pages are also photographed (docs/console.md uses them).

const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;
const PASSWORD = 'correct horse battery staple';

describe('the web face in a browser', { skip: chromiumPath ? false : 'no Chromium installed' }, () => {
  let site: FixtureServer;
  let evil: FixtureServer;
  let smtp: SmtpServer;
  let t: TestApi;
  let stack: BrowserStack;
  const deps = () => ({
    db: t.handle.db,
    config: loadConfig({ ...process.env, PUBLIC_SITE_URL: t.url }),
    mailer: createMailer(
      { SMTP_URL: smtp.url, MAIL_FROM: 'test@sightline.test' },
      createLogger('test', undefined, 'silent'),
    ),
  });

  before(async () => {
    site = await startFixtureServer({ root: path.resolve('test/fixtures/sites/quick-site') });
    stack = await startBrowserStack(
      {
        SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
        WEB_SCAN_MODE: 'quick',
        PUBLIC_SCAN_IP_LIMIT: '3',
        AUTH_EMAIL_LIMIT: '4',
        AUTH_IP_LIMIT: '1000',
      },
      { worker: true },
    );
    ({ t, smtp } = stack);
    // A page on another origin that posts to the console: the cross-site form of a CSRF attack.
    evil = await startFixtureServer({
      routes: {
        '/': (_req, res) => {
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              `<!doctype html><html lang="en"><title>evil</title><form method="post" action="${t.url}/console/keys"><input name="_csrf" value="guess"><button>go</button></form></html>`,
            );
        },
      },
    });
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await stack?.close();
    await site?.close();
    await evil?.close();
  });

  const phone = () => stack.phone();

  const fits = assertFitsPhone;

  /** A PNG for docs/console.md: the top of the page, at most 1,400 px tall, to keep files small. */
  async function shot(page: Page, name: string, opts: { width?: number } = {}) {
    if (!SHOTS) return;
    const width = opts.width ?? PHONE_WIDTH;
    if (opts.width) await page.setViewportSize({ width, height: 800 });
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({
      path: path.join(SHOTS, `${name}.png`),
      fullPage: true,
      clip: { x: 0, y: 0, width, height: Math.min(height, 1400) },
    });
    if (opts.width) await page.setViewportSize({ width: PHONE_WIDTH, height: 800 });
  }

  async function signIn(ctx: BrowserContext, email: string, password = PASSWORD) {
    const page = await ctx.newPage();
    await page.goto('/signin');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console$/);
    return page;
  }

  /** A person made through the real invitation functions (the browser flow is tested below). */
  async function person(email: string, tier: 'free' | 'pro' | 'agent' | 'intelligence') {
    const invite = await createInvite(deps(), { email, tier });
    const made = await acceptInvite(deps(), invite.link.split('/invite/')[1]!, PASSWORD);
    assert.ok(made);
    return made;
  }

  it('GET / gives JSON to API clients and the scan page to browsers, under a strict CSP', async () => {
    const json = await call(t.url, '/');
    assert.equal(json.status, 200);
    assert.match(json.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(json.body.openapi, `${t.url}/openapi.json`);
    const asCurl = await call(t.url, '/', { headers: { accept: '*/*' } });
    assert.match(asCurl.headers.get('content-type') ?? '', /application\/json/);
    const page = await call(t.url, '/', { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(page.status, 200);
    assert.match(page.text, /<form class="scan-form" method="post" action="\/scan"/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    for (const [name, type] of [
      ['app.css', 'text/css'],
      ['app.js', 'text/javascript'],
      ['uplot.js', 'text/javascript'],
      ['uplot.css', 'text/css'],
    ] as const) {
      const r = await call(t.url, `/assets/${name}`);
      assert.equal(r.status, 200, name);
      assert.match(r.headers.get('content-type') ?? '', new RegExp(type));
    }
    const uplot = await call(t.url, '/assets/uplot.js');
    assert.equal(uplot.text, fs.readFileSync('node_modules/uplot/dist/uPlot.iife.min.js', 'utf8'));
    assert.equal((await call(t.url, '/assets/nope.js')).status, 404);
  });

  it('signs up by email: the first key is shown once and mailed, works on the API, and more keys can be made and revoked (then 401)', async () => {
    const ctx = await phone();
    const page = await ctx.newPage();
    const email = 'new.person@example.test';
    await page.goto('/signup');
    await fits(page);
    await shot(page, 'signup');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await fits(page);

    const confirm = await smtp.waitFor(email, /Confirm your Sightline account/);
    const link = /http:\/\/\S+\/signup\/confirm\/\S+/.exec(confirm.text)?.[0];
    assert.ok(link, confirm.text);
    await page.goto(link);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('heading', { name: 'Welcome to Sightline' }).waitFor();
    await fits(page);
    const key = await page.getByLabel('API key').inputValue();
    assert.match(key, /^sl_live_[0-9A-Za-z]{40}$/);
    const mailed = await smtp.waitFor(email, /Your Sightline API key/);
    assert.ok(mailed.text.includes(key), 'the first key is emailed');

    const me = await call(t.url, '/api/v1/account', { key });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.email, email);
    assert.equal(me.body.tier, 'free');

    // The confirmation link works once.
    const again = await ctx.newPage();
    const res = await again.goto(link);
    assert.equal(res?.status(), 410);

    await page.goto('/console/keys');
    await fits(page);
    assert.equal(await page.locator('tbody tr').count(), 1);
    await page.getByRole('button', { name: 'Create a key' }).click();
    const second = await page.getByLabel('API key').inputValue();
    assert.notEqual(second, key);
    assert.equal((await call(t.url, '/api/v1/account', { key: second })).status, 200);
    await shot(page, 'console-keys');
    // The list shows prefixes, never keys.
    assert.ok(!(await page.locator('table').innerText()).includes(second));
    await page.goto('/console/keys');
    assert.ok(!(await page.content()).includes(second), 'a key is shown only once');
    const prefix = second.slice(0, 14);
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: `Revoke key ${prefix}` }).click();
    await page.getByText(/is revoked/).waitFor();
    await fits(page);
    const revoked = await call(t.url, '/api/v1/account', { key: second });
    assert.equal(revoked.status, 401);
    assert.equal((await call(t.url, '/api/v1/account', { key })).status, 200, 'the other key still works');

    // Signing up again with the same address reveals nothing on screen; the owner gets a note.
    const other = await phone();
    const p2 = await other.newPage();
    await p2.goto('/signup');
    await p2.getByLabel('Email').fill(email.toUpperCase());
    await p2.getByLabel('Password').fill('another password 123');
    await p2.getByRole('button', { name: 'Sign up' }).click();
    await p2.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await smtp.waitFor(email, /already have a Sightline account/);
    await other.close();
    await ctx.close();
  });

  it('signs in and out; a wrong password and an unknown address read the same; the sign-in limit per email holds', async () => {
    const { email } = await person('limit@example.test', 'pro');
    const ctx = await phone();
    const page = await signIn(ctx, email); // attempt 1 of 4
    await fits(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${t.url}/`);
    assert.equal((await page.goto('/console/keys'))?.url(), `${t.url}/signin?next=%2Fconsole%2Fkeys`);

    const attempt = async (addr: string, password: string) => {
      await page.goto('/signin');
      await page.getByLabel('Email').fill(addr);
      await page.getByLabel('Password').fill(password);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/signin') && r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      await page.waitForLoadState();
      return { status: res.status(), text: await page.locator('main').innerText() };
    };
    const wrong = await attempt(email, 'not the password'); // 2
    const unknown = await attempt('nobody@example.test', 'not the password');
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, wrong.status);
    assert.equal(unknown.text.replace('nobody@example.test', ''), wrong.text.replace(email, ''));
    assert.equal((await attempt(email, 'still wrong')).status, 401); // 3
    assert.equal((await attempt(email, 'wrong again')).status, 401); // 4
    const blocked = await attempt(email, PASSWORD); // 5: refused although right
    assert.equal(blocked.status, 429);
    assert.match(blocked.text, /Too many attempts/);
    await fits(page);
    await ctx.close();

    // The per-address bucket: one client address cannot try more than AUTH_IP_LIMIT times.
    const cfg = { ...deps().config, AUTH_IP_LIMIT: 2 };
    const tries = [];
    for (let i = 0; i < 3; i++)
      tries.push(
        (await takeAuthAttempt({ db: t.handle.db, config: cfg }, 'signin', '203.0.113.9', `x${i}@e.test`))
          .allowed,
      );
    assert.deepEqual(tries, [true, true, false]);
  });

  it('resets a password by email: the old one stops working, sessions end, the link works once', async () => {
    const { email } = await person('forgetful@example.test', 'free');
    const ctx = await phone();
    const signedIn = await signIn(ctx, email);
    const page = await (await phone()).newPage();
    await page.goto('/reset');
    await fits(page);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    const unknownText = await page.locator('main').innerText();
    const mail = await smtp.waitFor(email, /Reset your Sightline password/);
    const link = /http:\/\/\S+\/reset\/\S+/.exec(mail.text)?.[0];
    assert.ok(link);
    await page.goto(link);
    await page.getByLabel('New password').fill('a brand new password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();
    assert.equal((await page.goto(link))?.status(), 410);
    // The session opened before the reset is over.
    await signedIn.goto('/console');
    assert.match(signedIn.url(), /\/signin/);
    await signIn(await phone(), email, 'a brand new password');
    // No enumeration: an unknown address gets the same page, and no mail.
    const p2 = await (await phone()).newPage();
    await p2.goto('/reset');
    await p2.getByLabel('Email').fill('ghost@example.test');
    await p2.getByRole('button', { name: 'Send the link' }).click();
    await p2.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    assert.equal(
      (await p2.locator('main').innerText()).replace('ghost@example.test', ''),
      unknownText.replace(email, ''),
    );
    assert.ok(!smtp.messages.some((m) => m.to.includes('ghost@example.test')));
  });

  it('accepts a B invitation made with `sightline invites create`', async () => {
    process.env.DATABASE_URL = t.database.url;
    process.env.PUBLIC_SITE_URL = t.url;
    resetConfig();
    const out: string[] = [];
    const code = await main(
      ['invites', 'create', '--email', 'Partner@Example.test', '--tier', 'intelligence'],
      {
        out: (l) => out.push(l),
        err: () => {},
      },
    );
    delete process.env.DATABASE_URL;
    delete process.env.PUBLIC_SITE_URL;
    resetConfig();
    assert.equal(code, 0);
    const link = out.find((l) => l.includes('/invite/'))!;
    assert.ok(link.startsWith(`${t.url}/invite/`), out.join('\n'));

    const ctx = await phone();
    const page = await ctx.newPage();
    await page.goto(link);
    await fits(page);
    await shot(page, 'invite');
    assert.match(await page.locator('main').innerText(), /partner@example\.test/);
    // The server checks the length too, not only the browser (minlength).
    await page.getByLabel('Password').fill('short');
    await page.locator('form').evaluate((f: HTMLFormElement) => {
      f.noValidate = true;
    });
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByText('Use at least 10 characters.').last().waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('heading', { name: 'Welcome to Sightline' }).waitFor();
    const key = await page.getByLabel('API key').inputValue();
    assert.match(key, /^ar_[0-9A-Za-z]{40}$/);
    const me = await call(t.url, '/api/v1/account', { key });
    assert.equal(me.status, 200);
    assert.equal(me.body.variant, 'B');
    assert.equal(me.body.tier, 'intelligence');
    await page.goto('/console');
    assert.equal(
      await page.getByRole('link', { name: 'Monitoring' }).count(),
      0,
      'no A pages for a B account',
    );
    assert.equal((await page.goto('/console/sites'))?.status(), 404);
    assert.equal((await page.goto(link))?.status(), 410, 'an invitation works once');
    await ctx.close();
  });

  it('refuses form posts without the CSRF token: cross-site and same-site', async () => {
    const { email, accountId } = await person('csrf@example.test', 'free');
    const ctx = await phone();
    const page = await signIn(ctx, email);
    const keys = async () =>
      Number(
        (
          await t.handle.db
            .selectFrom('api_keys')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('account_id', '=', accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await keys();
    await page.goto(evil.url);
    const [res] = await Promise.all([
      page.waitForResponse(`${t.url}/console/keys`),
      page.getByRole('button').click(),
    ]);
    assert.equal(res.status(), 403);
    await page.getByRole('heading', { name: 'Form refused' }).waitFor();
    const sameSite = await page.evaluate(async (url) => {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
        credentials: 'include',
      });
      return r.status;
    }, `${t.url}/console/keys`);
    assert.equal(sameSite, 403);
    assert.equal(await keys(), before, 'no key was made');
    // And an anonymous form needs its cookie-bound token too.
    const anon = await fetch(`${t.url}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: PASSWORD, _csrf: 'x'.repeat(43) }),
      redirect: 'manual',
    });
    assert.equal(anon.status, 403);
    assert.equal(anon.headers.get('set-cookie')?.includes('sl_session'), false);
    await ctx.close();
  });

  it("shows monitoring with charts to its owner, and account 2's session gets 404 on every console URL of account 1", async () => {
    const one = await person('owner@example.test', 'agent');
    await setSubscription(t.handle.db, one.accountId, 'growth');
    const db = t.handle.db;
    const own = await db
      .insertInto('monitored_sites')
      .values({ account_id: one.accountId, url: site.url, label: 'Shop', site_type: 'own' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const rival = await db
      .insertInto('monitored_sites')
      .values({
        account_id: one.accountId,
        url: `${site.origin}/rival`,
        label: 'Rival',
        site_type: 'competitor',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (let i = 0; i < 6; i++) {
      for (const [id, base] of [
        [own.id, 70],
        [rival.id, 60],
      ] as const) {
        await sql`insert into monitor_scans (site_id, due_at, status, overall_score, dimension_scores, issues, model_version, scanned_at)
          values (${id}, now() - make_interval(days => ${6 - i}), 'ok', ${base + i * 3},
            ${JSON.stringify({ seo: base + i, speed: base - i, copy: 80, social: 50, local: 40, ai: 30 + i })}::jsonb,
            '["No meta description"]'::jsonb, '1.0.0', now() - make_interval(days => ${6 - i}))`.execute(db);
      }
    }
    await sql`update monitored_sites set last_scanned_at = now() where account_id = ${one.accountId}`.execute(
      db,
    );
    const lastScan = await db
      .selectFrom('monitor_scans')
      .select('id')
      .where('site_id', '=', own.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('monitor_alerts')
      .values({
        site_id: own.id,
        monitor_scan_id: lastScan.id,
        alert_type: 'score_drop',
        dimension: null,
        previous_score: 85,
        current_score: 70,
        delta: -15,
        message: 'Overall score dropped 15 points (85 → 70)',
        scanned_at: new Date(),
      })
      .execute();
    // Its webhook was tried and refused: the console says so, and why.
    await db
      .updateTable('monitor_alerts')
      .set({ delivery_status: 'failed', delivery_detail: 'HTTP 500', attempted_at: new Date() })
      .where('site_id', '=', own.id)
      .execute();
    const order = 'ord_consoletest0000000001';
    await sql`insert into audit_orders (id, account_id, product, target_url, report_token, status, report, report_summary, delivered_at)
      values (${order}, ${one.accountId}, 'seo_audit', ${site.url}, 'tok_consoletest', 'delivered', '{"format":1}'::jsonb,
        '3 findings: 1 high, 2 low.', now())`.execute(db);
    const keyId = (
      await db
        .selectFrom('api_keys')
        .select('id')
        .where('account_id', '=', one.accountId)
        .executeTakeFirstOrThrow()
    ).id;

    const ctx1 = await phone();
    const p1 = await signIn(ctx1, one.email);
    await shot(p1, 'console-overview-monitoring');
    await p1.goto('/console/sites');
    await fits(p1);
    // uPlot (served from its npm package) drew a chart per site.
    await p1.locator('.chart[data-drawn=true] canvas').first().waitFor();
    assert.equal(await p1.locator('.chart[data-drawn=true]').count(), 2);
    assert.deepEqual(
      await p1.locator('article.site h3 a').allInnerTexts(),
      ['Shop', 'Rival'],
      'own sites first',
    );
    assert.match(await p1.locator('main').innerText(), /Overall score dropped 15 points/);
    assert.match(
      await p1.locator('.alerts').innerText(),
      /Webhook failed: HTTP 500/,
      'why the webhook failed',
    );
    assert.match(await p1.locator('main').innerText(), /\/status\//);
    // The status link is stored hashed: a new one is shown once, works, and ends the old one.
    await p1.getByRole('button', { name: 'New status page link' }).click();
    const link = await p1.locator('#status-page a[href*="/status/"]').getAttribute('href');
    assert.ok(link, 'the new link is shown');
    assert.equal((await fetch(link!)).status, 200, 'and it works');
    await p1.goto('/console/sites');
    assert.equal(await p1.locator('#status-page a[href*="/status/"]').count(), 0, 'shown once');
    // Adding a site goes through the same addSite as the API: its URL rules and quota.
    await p1.getByLabel('Address').fill('http://10.0.0.1/');
    await p1.getByRole('button', { name: 'Add site' }).click();
    await p1.getByRole('alert').waitFor();
    assert.match(await p1.getByRole('alert').innerText(), /not allowed|private|10\.0\.0\.1/i);
    await p1.getByLabel('Address').fill(`${site.origin}/docs/`);
    await p1.getByLabel('Label').fill('Docs');
    await p1.getByLabel('Kind').selectOption('competitor');
    await p1.getByRole('button', { name: 'Add site' }).click();
    await p1.getByText('Added Docs.').waitFor();
    assert.equal(await p1.locator('article.site').count(), 3);
    await fits(p1);
    await shot(p1, 'console-monitoring');
    await shot(p1, 'console-monitoring-desktop', { width: 1100 });
    await p1.goto(`/console/sites/${own.id}`);
    await fits(p1);
    await p1.locator('.chart[data-drawn=true] canvas').waitFor();
    await p1.getByText('Scores as a table').click();
    assert.equal(await p1.locator('.history-table tbody tr').count(), 6);
    await shot(p1, 'console-site');
    await p1.goto('/console/audits');
    await fits(p1);
    await p1.getByRole('link', { name: 'seo audit' }).click();
    await p1.getByText('3 findings: 1 high, 2 low.').waitFor();
    assert.ok(await p1.getByRole('link', { name: 'Open the report' }).getAttribute('href'));
    await fits(p1);
    await p1.goto('/console/account');
    await fits(p1);
    await p1.getByLabel('Weekly digest').check();
    await p1.getByRole('button', { name: 'Save preferences' }).click();
    await p1.getByText('Your notification preferences are saved.').waitFor();
    assert.equal(await p1.getByLabel('Weekly digest').isChecked(), true);
    await shot(p1, 'console-account');

    // Account 2 (also variant A, with its own plan) walks account 1's URLs.
    const two = await person('stranger@example.test', 'agent');
    await setSubscription(t.handle.db, two.accountId, 'growth');
    const ctx2 = await phone();
    const p2 = await signIn(ctx2, two.email);
    for (const url of [
      `/console/sites/${own.id}`,
      `/console/sites/${rival.id}`,
      `/console/audits/${order}`,
    ]) {
      const res = await p2.goto(url);
      assert.equal(res?.status(), 404, url);
      const text = await p2.locator('main').innerText();
      assert.ok(!text.includes('Shop') && !text.includes('Rival') && !text.includes('3 findings'), url);
      await fits(p2);
    }
    for (const url of ['/console/sites', '/console/audits', '/console/keys', '/console']) {
      await p2.goto(url);
      const text = await p2.locator('main').innerText();
      assert.ok(!text.includes('Shop') && !text.includes(order) && !text.includes(one.keyPrefix), url);
    }
    const revoke = await p2.evaluate(
      async ([url, csrf]) => {
        const r = await fetch(url!, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ _csrf: csrf! }),
        });
        return r.status;
      },
      [`/console/keys/${keyId}/revoke`, await p2.locator('input[name=_csrf]').first().inputValue()],
    );
    assert.equal(revoke, 404);
    assert.equal(
      (await call(t.url, '/api/v1/account', { key: one.key })).status,
      200,
      "account 1's key still works",
    );
    await ctx1.close();
    await ctx2.close();
  });

  it('runs a free scan from / to the report, shares it, and says clearly when the per-address limit is reached', async () => {
    const ctx = await phone();
    const page = await ctx.newPage();
    await page.goto('/');
    await fits(page);
    await shot(page, 'home');
    await page.getByLabel('Website address').fill(site.origin);
    await page.getByRole('button', { name: 'Scan' }).click();
    await page.waitForURL(/\/r\/sc_/);
    await page
      .getByRole('heading', { name: /Report for/ })
      .waitFor({ timeout: 60_000 })
      .catch(async (err) => {
        throw new Error(`no report: ${await page.locator('main').innerText()}`, { cause: err });
      });
    await fits(page);
    const text = await page.locator('main').innerText();
    for (const name of ['SEO', 'Speed', 'Security', 'Accessibility', 'Mobile', 'Content', 'Conversion'])
      assert.ok((await page.locator(`h3:has-text("${name}")`).count()) >= 1, name);
    assert.equal(await page.locator('section.dim[id^=dim-]').count(), 7);
    assert.match(text, /Recommended: /);
    assert.match(
      text,
      /Scored with the site-audit model \d+\.\d+\.\d+\. Why monitoring shows a different number/,
    );
    assert.match(text, /Agent readability/);
    assert.equal(await page.locator('section.dim[id^=agent-]').count(), 5);
    assert.ok((await page.locator('ul.issues li').count()) > 0, 'issues are listed');
    await shot(page, 'report');
    await shot(page, 'report-desktop', { width: 1100 });
    const share = await page.getByLabel('Share this report').inputValue();
    assert.equal(share, page.url());
    // The shared address opens the same report for someone else.
    const other = await (await phone()).newPage();
    await other.goto(share);
    await other.getByRole('heading', { name: /Report for/ }).waitFor();

    // PUBLIC_SCAN_IP_LIMIT is 3 here: two more scans, then the limit message.
    for (let i = 0; i < 2; i++) {
      await page.goto('/');
      await page.getByLabel('Website address').fill(`${site.origin}/docs/`);
      await page.getByRole('button', { name: 'Scan' }).click();
      await page.waitForURL(/\/r\/sc_/);
    }
    await page.goto('/');
    await page.getByLabel('Website address').fill(site.origin);
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/scan')),
      page.getByRole('button', { name: 'Scan' }).click(),
    ]);
    assert.equal(res.status(), 429);
    await page.getByText(/reached the limit of 3 free scans per hour/).waitFor();
    await fits(page);
    await shot(page, 'home-limit');
    // A bad address is explained beside the box.
    await ctx.close();
  });
});
