import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { main } from '../../../cli/main.ts';
import { loadConfig, resetConfig } from '../../../shared/config.ts';
import { createLogger } from '../../../shared/logger.ts';
import { createMailer } from '../../../shared/people/mail.ts';
import { acceptInvite, createInvite } from '../../../shared/people/people.ts';
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

// The variant B console in real Chromium at 375 px: a B invitation from the CLI, a site registered
// in the console (tracking id and ingest token shown once, with snippets), 1,000 agent visits sent
// through POST /api/v1/collect with that token, and the dashboard's chart and tables showing them
// with the same numbers as the REST API; the site's agent-readability scan; account 2 gets 404 on
// account 1's site URLs, and A and B accounts each get 404 on the other's pages. With
// CONSOLE_SCREENSHOTS_DIR set, the pages are photographed for docs/console.md.

const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;
const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;

/** Real AI user agents (vendors' published strings) and where each visit comes from. */
const AGENTS = [
  {
    agent: 'GPTBot',
    platform: 'OpenAI',
    type: 'training',
    n: 300,
    ip: '132.196.86.10', // inside OpenAI's published GPTBot range
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  },
  {
    agent: 'OAI-SearchBot',
    platform: 'OpenAI',
    type: 'search',
    n: 150,
    ip: '104.210.140.130',
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  },
  {
    agent: 'ChatGPT-User',
    platform: 'OpenAI',
    type: 'browse',
    n: 100,
    ip: '104.210.139.194',
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  },
  {
    agent: 'ClaudeBot',
    platform: 'Anthropic',
    type: 'training',
    n: 200,
    ip: '216.73.216.5',
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  },
  {
    agent: 'PerplexityBot',
    platform: 'Perplexity',
    type: 'search',
    n: 100,
    ip: '203.0.113.7', // not Perplexity's: spoofed
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  },
  {
    agent: 'CCBot',
    platform: 'Common Crawl',
    type: 'training',
    n: 100,
    ip: '198.51.100.3',
    ua: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
  },
  {
    agent: 'Bytespider',
    platform: 'ByteDance',
    type: 'training',
    n: 50,
    ip: '198.51.100.4',
    ua: 'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
  },
] as const;

const digits = (s: string) => Number(s.replace(/[^0-9]/g, ''));

describe('the variant B console in a browser', {
  skip: chromiumPath ? false : 'no Chromium installed',
}, () => {
  let site: FixtureServer;
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
        AUTH_IP_LIMIT: '1000',
      },
      { worker: true },
    );
    ({ t, smtp } = stack);
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await stack?.close();
    await site?.close();
  });

  const phone = () => stack.phone();

  const fits = assertFitsPhone;

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

  /** A desktop PNG of the page from one section down (the lower half of a long page). */
  async function shotFrom(page: Page, selector: string, name: string) {
    if (!SHOTS) return;
    const width = 1100;
    await page.setViewportSize({ width, height: 800 });
    const top = await page
      .locator(selector)
      .evaluate((el) => el.getBoundingClientRect().top + window.scrollY - 16);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({
      path: path.join(SHOTS, `${name}.png`),
      fullPage: true,
      clip: { x: 0, y: top, width, height: Math.min(height - top, 1000) },
    });
    await page.setViewportSize({ width: PHONE_WIDTH, height: 800 });
  }

  async function signIn(ctx: BrowserContext, email: string) {
    const page = await ctx.newPage();
    await page.goto('/signin');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console$/);
    return page;
  }

  async function person(email: string, tier: 'pro' | 'intelligence' | 'optimisation') {
    const invite = await createInvite(deps(), { email, tier });
    const made = await acceptInvite(deps(), invite.link.split('/invite/')[1]!, PASSWORD);
    assert.ok(made);
    return made;
  }

  /** Text of each row's cells of a table, keyed by the row header. */
  async function tableRows(page: Page, selector: string) {
    return page.locator(`${selector} tbody tr`).evaluateAll((rows) =>
      rows.map((r) => ({
        head: r.querySelector('th')?.textContent?.trim() ?? '',
        cells: [...r.querySelectorAll('td')].map((c) => c.textContent?.trim() ?? ''),
      })),
    );
  }

  it('registers a site, takes 1,000 agent visits through /api/v1/collect with the ingest token shown once, and the dashboard shows them', async () => {
    // A B invitation made with the operator CLI, accepted in the browser.
    process.env.DATABASE_URL = t.database.url;
    process.env.PUBLIC_SITE_URL = t.url;
    resetConfig();
    const out: string[] = [];
    const code = await main(
      ['invites', 'create', '--email', 'agents@example.test', '--tier', 'intelligence'],
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
    const ctx = await phone();
    const page = await ctx.newPage();
    await page.goto(link);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('heading', { name: 'Welcome to Sightline' }).waitFor();
    const key = await page.getByLabel('API key').inputValue();
    assert.match(key, /^ar_/);

    // Register the site in the console.
    await page.goto('/console');
    await page.getByRole('link', { name: 'Agent traffic' }).first().click();
    await page.waitForURL(/\/console\/agent-sites$/);
    await fits(page);
    assert.match(await page.locator('main').innerText(), /No sites yet/);
    await page.getByLabel('Address').fill('ftp://nope.example');
    await page.getByRole('button', { name: 'Register site' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /http and https/);
    await page.getByLabel('Address').fill(site.origin);
    await page.getByLabel('Label').fill('Quick shop');
    const [registered] = await Promise.all([
      page.waitForResponse(
        (r) => r.url().endsWith('/console/agent-sites') && r.request().method() === 'POST',
      ),
      page.getByRole('button', { name: 'Register site' }).click(),
    ]);
    assert.equal(registered.status(), 201);
    assert.equal(registered.headers()['cache-control'], 'no-store');
    await page.getByRole('heading', { name: 'Quick shop is registered' }).waitFor();
    await fits(page);
    const token = await page.getByLabel('Ingest token').inputValue();
    assert.match(token, /^sit_[0-9A-Za-z]{40}$/);
    const trackingId = (await page.locator('.key-once dd code').innerText()).trim();
    assert.match(trackingId, /^site_[0-9A-Za-z]{16}$/);
    const curl = await page.locator('#snippet-curl').innerText();
    assert.ok(curl.includes(token) && curl.includes(trackingId) && curl.includes(`${t.url}/api/v1/collect`));
    assert.match(await page.locator('#snippet-express').innerText(), /process\.env\.SIGHTLINE_INGEST_TOKEN/);
    assert.match(
      await page.locator('#snippet-logs').innerText(),
      new RegExp(`logs import --site ${trackingId}`),
    );
    // The copy button puts the snippet on the clipboard exactly as shown.
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await page.locator('[data-copy-text=snippet-curl]').click();
    await page.locator('[data-copy-text=snippet-curl]', { hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), curl);
    await shot(page, 'console-agent-sites');
    const siteHref = await page.getByRole('link', { name: 'Open the dashboard' }).getAttribute('href');
    const siteId = /\/console\/agent-sites\/(\d+)$/.exec(siteHref ?? '')?.[1];
    assert.ok(siteId, siteHref ?? '');

    // Shown once: the list shows the prefix only.
    await page.goto('/console/agent-sites');
    const html = await page.content();
    assert.ok(!html.includes(token), 'the ingest token is shown only once');
    assert.ok(html.includes(token.slice(0, 10)), 'its prefix is listed');

    // 1,000 agent visits over three days, through the collect endpoint with the shown token.
    const now = Date.now();
    const requests = [];
    const perDay = new Map<string, Record<string, number>>();
    const perPath = new Map<string, number>();
    let i = 0;
    for (const a of AGENTS) {
      for (let k = 0; k < a.n; k++, i++) {
        const time = new Date(now - (i % 3) * DAY - i * 1000);
        const llms = i % 50 === 0;
        const p = llms ? '/llms.txt' : `/products/${i % 7}`;
        requests.push({
          time: time.toISOString(),
          method: 'GET',
          path: p,
          status: llms ? 404 : 200,
          ip: a.ip,
          user_agent: a.ua,
          referer: null,
        });
        const day = time.toISOString().slice(0, 10);
        const row = perDay.get(day) ?? {};
        row[a.platform] = (row[a.platform] ?? 0) + 1;
        perDay.set(day, row);
        perPath.set(p, (perPath.get(p) ?? 0) + 1);
      }
    }
    assert.equal(requests.length, 1000);
    const sent = await fetch(`${t.url}/api/v1/collect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ site: trackingId, requests }),
    });
    const counts = await sent.json();
    assert.equal(sent.status, 202, JSON.stringify(counts));
    assert.equal(counts.agents, 1000);
    assert.equal(counts.stored, 1000);

    // The dashboard, read from the same functions as the REST API.
    const rest = (await call(t.url, `/api/v1/sites/${siteId}/stats`, { key })).body;
    const restAgents = (await call(t.url, `/api/v1/sites/${siteId}/agents`, { key })).body;
    const restPages = (await call(t.url, `/api/v1/sites/${siteId}/pages?limit=20`, { key })).body;
    const restInsights = (await call(t.url, `/api/v1/sites/${siteId}/insights`, { key })).body;
    assert.equal(rest.visits, 1000);

    await page.goto(`/console/agent-sites/${siteId}`);
    await fits(page);
    assert.equal(digits(await page.locator('#total-visits').innerText()), 1000);
    // uPlot drew the chart: one line per platform.
    await page.locator('#chart-visits[data-drawn=true] canvas').waitFor();
    const chart = JSON.parse((await page.locator('#chart-visits').getAttribute('data-chart'))!);
    const platforms = ['OpenAI', 'Anthropic', 'Perplexity', 'Common Crawl', 'ByteDance'];
    assert.deepEqual(chart.series.map((s: { label: string }) => s.label).sort(), [...platforms].sort());
    const chartTotal = chart.series.reduce(
      (n: number, s: { values: (number | null)[] }) => n + s.values.reduce((m: number, v) => m + (v ?? 0), 0),
      0,
    );
    assert.equal(chartTotal, 1000, 'the chart holds every visit');
    assert.equal(await page.locator('.u-legend .u-series').count(), platforms.length + 1);

    // The same numbers as a table: per day and platform, and the totals.
    await page.getByText('Visits per day as a table').click();
    const heads = await page.locator('#table-visits thead th').allInnerTexts();
    const dayRows = await tableRows(page, '#table-visits');
    for (const [day, row] of perDay) {
      const r = dayRows.find((x) => x.head === day);
      assert.ok(r, `a row for ${day}`);
      for (const [platform, n] of Object.entries(row))
        assert.equal(digits(r.cells[heads.indexOf(platform) - 1]!), n, `${day} ${platform}`);
      assert.equal(
        digits(r.cells.at(-1)!),
        Object.values(row).reduce((a, b) => a + b, 0),
      );
    }
    assert.equal(dayRows.filter((r) => r.cells[0] === 'no data').length, dayRows.length - perDay.size);
    const foot = await page.locator('#table-visits tfoot td').allInnerTexts();
    for (const p of platforms) {
      const expected = AGENTS.filter((a) => a.platform === p).reduce((n, a) => n + a.n, 0);
      assert.equal(digits(foot[heads.indexOf(p) - 1]!), expected, p);
    }
    assert.equal(digits(foot.at(-1)!), 1000);

    // Platforms, type split and verified share match the REST answer.
    const platformRows = await tableRows(page, '#table-platforms');
    assert.deepEqual(
      platformRows.map((r) => [r.head, digits(r.cells[0]!), r.cells[2]]),
      rest.platforms.map((p: { platform: string; visits: number; verifiedShare: number }) => [
        p.platform,
        p.visits,
        `${p.verifiedShare}%`,
      ]),
    );
    const typeRows = await tableRows(page, '#table-types');
    const byType = Object.fromEntries(typeRows.map((r) => [r.head, digits(r.cells[0]!)]));
    assert.deepEqual(byType, {
      'Training crawlers': 650,
      'Search indexers': 250,
      'Live fetches for users': 100,
    });
    assert.equal(await page.locator('#verified-share').innerText(), `${rest.verifiedShare}%`);
    assert.equal(rest.verification.spoofed, 100, 'PerplexityBot from a stranger address is spoofed');
    assert.equal(rest.verification.none, 150, 'CCBot and Bytespider offer no check');
    assert.equal(rest.verifiedShare, 75);

    // Agents table: one row per agent, visits as sent.
    const agentRows = await tableRows(page, '#table-agents');
    assert.equal(agentRows.length, AGENTS.length);
    for (const a of AGENTS) {
      const r = agentRows.find((x) => x.head === a.agent);
      assert.ok(r, a.agent);
      assert.equal(r.cells[0], a.platform);
      assert.equal(r.cells[1], a.type);
      assert.equal(digits(r.cells[2]!), a.n, a.agent);
    }
    assert.equal(
      restAgents.platforms.reduce((n: number, p: { agents: unknown[] }) => n + p.agents.length, 0),
      AGENTS.length,
    );

    // Top pages: the ranking of /pages.
    const pageRows = await tableRows(page, '#table-pages');
    assert.deepEqual(
      pageRows.map((r) => [r.head, digits(r.cells[0]!)]),
      restPages.pages.map((p: { path: string; visits: number }) => [p.path, p.visits]),
    );
    assert.equal(digits(pageRows.find((r) => r.head === '/llms.txt')!.cells[2]!), perPath.get('/llms.txt'));

    // Insights: the same list, high priority first.
    const titles = await page.locator('.insights h3').allInnerTexts();
    assert.deepEqual(
      titles.map((s) => s.replace(/^(high|medium|low)\s*/i, '')),
      restInsights.insights.map((x: { title: string }) => x.title),
    );
    const ids = restInsights.insights.map((x: { id: string }) => x.id);
    for (const id of ['spoofed_agents', 'llms_txt_missing', 'training_dominates'])
      assert.ok(ids.includes(id), id);

    // Axis labels at any magnitude (the chart's y axis uses this formatter).
    assert.deepEqual(
      await page.evaluate(() =>
        [1_234_567, 12_000, 950].map((n) =>
          (window as unknown as { sightlineFormatCount: (n: number) => string }).sightlineFormatCount(n),
        ),
      ),
      ['1.2M', '12K', '950'],
    );
    // Long tables show 10 rows and a button for the next ones: 20 more pages, then reload.
    const extra = Array.from({ length: 20 }, (_, k) => ({
      time: new Date(now - k * 1000).toISOString(),
      method: 'GET',
      path: `/extra/${k}`,
      status: 200,
      ip: AGENTS[0]!.ip,
      user_agent: AGENTS[0]!.ua,
    }));
    const more = await fetch(`${t.url}/api/v1/collect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ site: trackingId, requests: extra }),
    });
    assert.equal(more.status, 202);
    await page.reload();
    assert.equal(await page.locator('#table-pages tbody tr').count(), 20);
    assert.equal(await page.locator('#table-pages tbody tr:visible').count(), 10);
    const showMore = page.locator('button[aria-controls=table-pages]');
    assert.match((await showMore.textContent()) ?? '', /Show 10 more \(10 hidden\)/);
    await showMore.click();
    assert.equal(await page.locator('#table-pages tbody tr:visible').count(), 20);
    assert.equal(await showMore.count(), 0);

    // No scan of the site yet; the link leads to the console's scan of the site (the account's
    // own limit, not the free scan's), whose progress page turns into the result, which then shows.
    const readability = page.locator('section[aria-labelledby=scan-title]');
    assert.match(await readability.innerText(), /Not scanned yet/);
    await fits(page);
    await shot(page, 'console-agent-site');
    await shot(page, 'console-agent-site-desktop', { width: 1100 });
    await readability.getByRole('link', { name: /Scan .* now/ }).click();
    await page.waitForURL(new RegExp(`/console/agent-sites/${siteId}/citability$`));
    await fits(page);
    await page.getByLabel(/^Quick/).check();
    await page.getByRole('button', { name: /Scan .* now/ }).click();
    await page.waitForURL(/\/citability\/scans\/sc_/);
    await page.getByText(/Scan done: \d+ out of 100/).waitFor({ timeout: 60_000 });
    await fits(page);
    const scanUrl = `/r/${new URL(page.url()).pathname.split('/').at(-1)}`;
    await page.goto(`/console/agent-sites/${siteId}`);
    const scanText = await readability.innerText();
    assert.match(scanText, /Grade [A-F]/);
    for (const dim of ['Structure', 'Citability', 'Discoverability', 'Agent Interface', 'Transactability'])
      assert.match(scanText, new RegExp(dim, 'i'));
    assert.equal(await readability.getByRole('link', { name: 'Full report' }).getAttribute('href'), scanUrl);
    await fits(page);
    const listed = (await call(t.url, '/api/v1/sites', { key })).body.sites[0];
    assert.ok(listed.overallScore !== null);
    assert.match(await readability.innerText(), new RegExp(String(listed.overallScore)));
    await shotFrom(page, 'section[aria-labelledby=agents-title]', 'console-agent-site-details');

    // The raw event stream: REST's first page of 100, then the older ones, each fitting 375 px.
    await page.getByRole('link', { name: 'Every agent visit, newest first' }).click();
    await page.waitForURL(/\/events$/);
    assert.equal(await page.locator('#table-events tbody tr').count(), 100);
    await fits(page);
    await page.getByRole('link', { name: 'Older events' }).click();
    await page.waitForURL(/\/events\?cursor=/);
    assert.equal(await page.locator('#table-events tbody tr').count(), 100);
    await fits(page);
    await page.goto(`/console/agent-sites/${siteId}`);

    // The shown curl snippet works as pasted.
    const { stdout } = await promisify(execFile)('bash', ['-c', curl]);
    assert.equal(JSON.parse(stdout).stored, 1, stdout);
    await page.reload();
    assert.equal(digits(await page.locator('#total-visits').innerText()), 1021); // 1,000 + 20 pages + 1
    await ctx.close();
  });

  it("answers 404 to another account's site URLs and to the other variant's pages; removing a site ends its token", async () => {
    const one = await person('one.b@example.test', 'intelligence');
    const two = await person('two.b@example.test', 'optimisation');
    const a = await person('variant.a@example.test', 'pro');
    const ctx1 = await phone();
    const p1 = await signIn(ctx1, one.email);
    await p1.goto('/console/agent-sites');
    // The same address as the first test's site, which that account scanned.
    await p1.getByLabel('Address').fill(site.origin);
    await p1.getByLabel('Label').fill('Secret shop');
    await p1.getByRole('button', { name: 'Register site' }).click();
    const token = await p1.getByLabel('Ingest token').inputValue();
    const trackingId = (await p1.locator('.key-once dd code').innerText()).trim();
    const siteId = /(\d+)$/.exec(
      (await p1.getByRole('link', { name: 'Open the dashboard' }).getAttribute('href'))!,
    )![1]!;
    assert.equal((await p1.goto(`/console/agent-sites/${trackingId}`))?.status(), 200, 'by tracking id');
    assert.equal((await p1.goto(`/console/agent-sites/${siteId}`))?.status(), 200);
    assert.match(await p1.locator('main').innerText(), /No agent visits in the last 30 days yet/);
    // The newest scan of the address is another account's: its score shows, its report link does not.
    const otherScan = await t.handle.db
      .selectFrom('scans')
      .select(['id', 'account_id'])
      .where('url', '=', `${site.origin}/`)
      .where('status', '=', 'done')
      .executeTakeFirstOrThrow();
    assert.notEqual(otherScan.account_id, one.accountId);
    const readability = p1.locator('section[aria-labelledby=scan-title]');
    assert.match(await readability.innerText(), /Grade [A-F]/);
    assert.match(await readability.innerText(), /Scan it again for your own report/);
    assert.ok(!(await p1.content()).includes(otherScan.id), "another account's scan id is not shown");
    await fits(p1);

    const ctx2 = await phone();
    const p2 = await signIn(ctx2, two.email);
    for (const url of [`/console/agent-sites/${siteId}`, `/console/agent-sites/${trackingId}`]) {
      const res = await p2.goto(url);
      assert.equal(res?.status(), 404, url);
      assert.ok(!(await p2.locator('main').innerText()).includes('Secret shop'), url);
      await fits(p2);
    }
    await p2.goto('/console/agent-sites');
    assert.ok(!(await p2.content()).includes('Secret shop'));
    const csrf = await p2.locator('input[name=_csrf]').first().inputValue();
    const removeAsTwo = await p2.evaluate(
      async ([url, token]) =>
        (
          await fetch(url!, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ _csrf: token! }),
          })
        ).status,
      [`/console/agent-sites/${siteId}/remove`, csrf],
    );
    assert.equal(removeAsTwo, 404);
    // Variant B gets 404 on A's pages; variant A on B's.
    for (const url of ['/console/sites', '/console/audits'])
      assert.equal((await p2.goto(url))?.status(), 404, url);
    const ctxA = await phone();
    const pA = await signIn(ctxA, a.email);
    assert.equal(await pA.getByRole('link', { name: 'Agent traffic' }).count(), 0);
    for (const url of ['/console/agent-sites', `/console/agent-sites/${siteId}`])
      assert.equal((await pA.goto(url))?.status(), 404, url);

    // The owner removes it (after a confirmation); its ingest token then stops working.
    const collect = () =>
      fetch(`${t.url}/api/v1/collect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          site: trackingId,
          requests: [
            { time: Date.now(), method: 'GET', path: '/', ip: AGENTS[0].ip, user_agent: AGENTS[0].ua },
          ],
        }),
      });
    assert.equal((await collect()).status, 202);
    p1.once('dialog', (d) => d.accept());
    await p1.getByRole('button', { name: 'Remove Secret shop' }).click();
    await p1.getByText(/Secret shop and all its agent traffic are removed/).waitFor();
    assert.equal((await collect()).status, 401);
    assert.equal((await p1.goto(`/console/agent-sites/${siteId}`))?.status(), 404);
    await ctx1.close();
    await ctx2.close();
    await ctxA.close();
  });
});
