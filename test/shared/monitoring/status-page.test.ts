import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { chromium as playwright } from 'playwright-core';
import { hashStatusToken, rotateStatusToken } from '../../../shared/accounts/status-token.ts';
import { findChromium, STANDARD_ARGS } from '../../../worker/browser/chromium.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// The public status page: server-rendered HTML and the same data as JSON, the 404 page, and the
// page opened in real Chromium (scores and chart visible, no console errors, a screenshot).

const installed = findChromium();
const SCREENSHOT = path.resolve('test-results/monitor-status-page.png');

let t: TestApi;
let spec: SpecChecker;
let token: string;
let accountIdOf: string;
let shopId: string;
let history: number[];

const DAY = 86_400_000;

before(async () => {
  t = await startTestApi();
  spec = await SpecChecker.load(t.url);
  const key = await t.newKey('A', 'free', { plan: 'agency' });
  const accountId = String((await call(t.url, '/api/v1/account', { key })).body.id);
  // The token is stored hashed and was shown once at creation; rotating hands out a new one.
  accountIdOf = accountId;
  token = (await rotateStatusToken(t.handle.db, accountId))!;
  const insertSite = async (url: string, label: string, siteType: 'own' | 'competitor') =>
    (
      await t.handle.db
        .insertInto('monitored_sites')
        .values({ account_id: accountId, url, label, site_type: siteType })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  shopId = await insertSite('https://crumb.example/', 'Crumb & Co. <bakery>', 'own');
  await insertSite('https://blog.crumb.example/', 'Crumb blog', 'own');
  await insertSite('https://rival.example/', 'Rival bakery', 'competitor');

  // Fourteen daily scans of the shop as the worker records them: a dip, a day down, a recovery.
  history = [78, 80, 81, 81, 83, 84, 60, 58, 0, 79, 85, 86, 88, 91];
  const now = Date.now();
  const scanIds: string[] = [];
  for (const [i, overall] of history.entries()) {
    const at = new Date(now - (history.length - 1 - i) * DAY);
    const down = i === 8;
    const row = await t.handle.db
      .insertInto('monitor_scans')
      .values({
        site_id: shopId,
        due_at: at,
        status: down ? 'down' : 'ok',
        overall_score: overall,
        dimension_scores: JSON.stringify(
          down
            ? { seo: 0, speed: 0, copy: 0, social: 0, local: 0, ai: 0 }
            : {
                seo: overall + 4,
                speed: 97,
                copy: overall - 10,
                social: 75,
                local: 45,
                competitor: 50,
                ai: 38,
              },
        ),
        issues: JSON.stringify(
          down ? ['The page could not be fetched: ECONNREFUSED'] : ['Page has no llms.txt'],
        ),
        model_version: '1.0.0',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.handle.pool.query('update monitor_scans set scanned_at = $1 where id = $2', [at, row.id]);
    scanIds.push(row.id);
  }
  await t.handle.pool.query(
    "update monitored_sites set last_scanned_at = now() - interval '2 hours' where id = $1",
    [shopId],
  );
  const alert = async (i: number, type: string, prev: number, cur: number, message: string) =>
    t.handle.pool.query(
      `insert into monitor_alerts (site_id, monitor_scan_id, alert_type, previous_score, current_score, delta, message, scanned_at, delivery_status, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, now() - $8::interval, 'delivered', now() - $8::interval)`,
      [shopId, scanIds[i], type, prev, cur, cur - prev, message, `${history.length - 1 - i} days`],
    );
  await alert(
    6,
    'score_drop',
    84,
    60,
    'Crumb & Co. <bakery>: overall score fell from 84 to 60 (-24), more than the alert threshold of 10 points',
  );
  await alert(8, 'site_down', 58, 0, 'Crumb & Co. <bakery> could not be fetched: ECONNREFUSED');
  await alert(
    9,
    'recovered',
    0,
    79,
    'Crumb & Co. <bakery> is reachable again with an overall score of 79; it was 84 before the incident',
  );
});
after(async () => {
  await t.close();
});

describe('public status page', () => {
  it('serves self-contained HTML with each own site, escaped, under a strict CSP', async () => {
    const res = await fetch(`${t.url}/status/${token}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    const html = await res.text();
    assert.match(html, /Crumb &#38; Co\. &#60;bakery&#62;/, 'labels are escaped');
    assert.ok(!html.includes('<bakery>'));
    assert.match(html, /Crumb blog/);
    assert.match(html, /First scan pending/);
    assert.ok(!html.includes('Rival bakery'), 'competitors stay private');
    assert.ok(!/<script|<link rel="stylesheet"|src="http/i.test(html), 'no scripts or external assets');
    assert.match(html, /aria-label="Overall score 91 out of 100"/);
    assert.equal((html.match(/<circle class="dot /g) ?? []).length, history.length);
  });

  it('serves the same data as JSON at <token>.json', async () => {
    const res = await call(t.url, `/status/${token}.json`);
    assert.equal(res.status, 200);
    spec.check('GET', '/status/{token}.json', res);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const shop = res.body.sites.find((s: { id: number }) => s.id === Number(shopId));
    assert.equal(shop.status, 'up');
    assert.equal(shop.overallScore, 91);
    assert.equal(shop.grade, 'A');
    assert.deepEqual(
      shop.history.map((h: { overallScore: number }) => h.overallScore),
      history,
    );
    assert.equal(shop.history[8].status, 'down');
    assert.equal(shop.dimensionScores.seo, 95);
    assert.equal(shop.dimensionScores.competitor, undefined);
    assert.equal(res.body.sites.length, 2);
    assert.equal(res.body.sites[1].status, 'pending');
    assert.deepEqual(
      res.body.alerts.map((a: { alert_type: string }) => a.alert_type),
      ['recovered', 'site_down', 'score_drop'],
    );
  });

  it('answers an unknown token with a 404 page (and 404 problem+json for .json)', async () => {
    const res = await fetch(`${t.url}/status/nope-${token.slice(5)}`);
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await res.text(), /Status page not found/);
    const json = await call(t.url, `/status/${token.slice(0, -2)}xx.json`);
    assert.equal(json.status, 404);
    assert.equal(json.body.code, 'not_found');
    spec.check('GET', '/status/{token}.json', json);
  });

  it("stores only the token's hash and a 6-character prefix, never the token", async () => {
    const row = await t.handle.db
      .selectFrom('subscriptions')
      .select(['status_token_hash', 'status_token_prefix'])
      .where('status_token_prefix', '=', token.slice(0, 6))
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.status_token_hash, hashStatusToken(token));
    const dump = (
      await sql<{ j: string }>`select string_agg(row_to_json(s)::text, '') as j from subscriptions s`.execute(
        t.handle.db,
      )
    ).rows[0]!.j;
    assert.ok(!dump.includes(token.slice(6)), 'the token is not in the database');
  });

  it('renders in Chromium: scores and chart visible, no console errors; screenshot saved', {
    skip: skipUnlessBrowser(installed),
  }, async () => {
    const browser = await playwright.launch({ executablePath: installed!.path, args: [...STANDARD_ARGS] });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
      const res = await page.goto(`${t.url}/status/${token}`, { waitUntil: 'load' });
      assert.equal(res?.status(), 200);

      const card = page.locator('article.card').first();
      assert.ok(await card.locator('.ring-text').isVisible());
      assert.equal((await card.locator('.ring-text').textContent())?.trim(), '91');
      const chart = card.locator('svg.chart');
      assert.ok(await chart.isVisible());
      const box = await chart.boundingBox();
      assert.ok(box && box.width > 300 && box.height > 80, `chart is ${box?.width}x${box?.height}`);
      assert.equal(await chart.locator('circle.dot').count(), history.length);
      const dims = await card.locator('.dims li').allInnerTexts();
      assert.deepEqual(
        dims.map((d) => d.replace(/\s+/g, ' ').trim()),
        ['SEO 95', 'Speed 97', 'Copy 81', 'Social 75', 'Local 45', 'AI visibility 38'],
      );
      assert.ok(await page.getByText('Recent alerts').isVisible());
      assert.equal(await page.locator('li.alert').count(), 3);

      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      assert.ok(fs.statSync(SCREENSHOT).size > 20_000, 'screenshot written');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

describe('rotating the status token', () => {
  it('gives a working new link and ends the old one at once', async () => {
    const old = token;
    const fresh = (await rotateStatusToken(t.handle.db, accountIdOf))!;
    assert.notEqual(fresh, old);
    assert.match(fresh, /^[A-Za-z0-9_-]{24}$/);
    assert.equal((await fetch(`${t.url}/status/${fresh}`)).status, 200);
    assert.equal((await call(t.url, `/status/${fresh}.json`)).status, 200);
    assert.equal((await fetch(`${t.url}/status/${old}`)).status, 404);
    assert.equal((await call(t.url, `/status/${old}.json`)).status, 404);
    assert.equal(await rotateStatusToken(t.handle.db, '999999999'), undefined, 'no subscription, no token');
  });
});
