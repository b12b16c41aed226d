import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { freePort } from '../../../shared/db/embedded.ts';
import { findChromium } from '../../../worker/browser/chromium.ts';
import { startAuditSite } from '../../fixtures/sites/audit-site/serve.ts';
import { call } from '../../helpers/api.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Full mode (browser render and Lighthouse on the key page) through a real order, and the
// resulting HTML report opened in real Chromium, on screen and as printed. Screenshots and the
// PDF land in TEST_ARTIFACTS_DIR (default: a sightline-test-artifacts folder in the temp dir).

const chromiumPath = findChromium()?.path;
const ARTIFACTS = process.env.TEST_ARTIFACTS_DIR ?? path.join(os.tmpdir(), 'sightline-test-artifacts');

describe('audit report in a browser', { skip: skipUnlessBrowser(chromiumPath) }, () => {
  let site: FixtureServer;
  let t: TestStack;
  let spec: SpecChecker;
  let browser: Browser;
  // biome-ignore lint/suspicious/noExplicitAny: report JSON
  let report: any;
  let reportUrl: string;

  before(async () => {
    site = await startAuditSite();
    t = await startTestStack({
      PORT: String(await freePort()),
      SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
      AUDIT_FULL_PAGES: '1',
    });
    spec = await SpecChecker.load(t.url);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu'],
    });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await site?.close();
  });

  it('a mobile audit in full mode renders the start page in the browser and finds what only a browser sees', async () => {
    const key = await t.newKey('A', 'agent', { rateLimit: 100_000 }); // polled often
    const placed = await call(t.url, '/api/v1/audit', {
      method: 'POST',
      key,
      body: { product: 'mobile_audit', target_url: site.url },
    });
    assert.equal(placed.status, 201, placed.text);
    let order = placed;
    const until = Date.now() + 180_000;
    while (order.body.status !== 'delivered' && order.body.status !== 'failed') {
      assert.ok(Date.now() < until, 'delivered within 3 minutes');
      await new Promise((r) => setTimeout(r, 500));
      order = await call(t.url, `/api/v1/audit/${placed.body.order_id}`, { key });
    }
    spec.check('GET', '/api/v1/audit/{order_id}', order);
    assert.equal(order.body.status, 'delivered', JSON.stringify(order.body));
    reportUrl = order.body.report_url;
    const json = await call(t.url, order.body.report_json_url.slice(t.url.length));
    spec.check('GET', '/api/v1/audit/{order_id}/report.json', json);
    report = json.body;
    assert.equal(report.crawl.full_mode_pages, 1);
    assert.deepEqual(
      report.pages.filter((p: { mode: string }) => p.mode === 'full').map((p: { url: string }) => p.url),
      [site.url],
    );
    // The 512 px hero image makes the start page scroll sideways on a 375 px phone: a rendered
    // measurement, not something the markup alone shows.
    const overflow = Object.values(report.findings)
      .flat()
      .find((f) => (f as { check_id: string }).check_id === 'mobile-overflow') as
      | { affected: { url: string }[] }
      | undefined;
    assert.ok(overflow, 'mobile-overflow found in full mode');
    assert.deepEqual(
      overflow.affected.map((a) => a.url),
      [site.url],
    );
  });

  it('the HTML report opens without console errors, shows every finding, and prints', async () => {
    assert.ok(reportUrl, 'the order was delivered');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()}`));
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const res = await page.goto(reportUrl, { waitUntil: 'load' });
    assert.equal(res?.status(), 200);
    assert.deepEqual(requests, [reportUrl], 'self-contained: the page loads nothing else');
    assert.equal(await page.title(), `Mobile Audit: 127.0.0.1:${site.port}`);

    const all = Object.values(report.findings).flat() as { check_id: string; title: string }[];
    assert.ok(all.length >= 3);
    for (const f of all) {
      const card = page.locator(`#f-${f.check_id}`);
      assert.ok(await card.isVisible(), `${f.check_id} is visible`);
      // biome-ignore lint/performance/useDomNodeTextContent: the heading as rendered is what is checked
      assert.equal((await card.locator('h3').innerText()).replace(/^\w+\s+/, ''), f.title);
    }
    assert.ok(await page.getByText(`${report.score}`, { exact: true }).first().isVisible());
    const shot = path.join(ARTIFACTS, `audit-report-${report.order_id}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok(fs.statSync(shot).size > 10_000, `screenshot written: ${shot}`);

    // On a phone the report reads without sideways scrolling.
    await page.setViewportSize({ width: 375, height: 800 });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375 + 1));

    // Printed: the findings are still there and cards are not split by default page breaks.
    await page.emulateMedia({ media: 'print' });
    for (const f of all) assert.ok(await page.locator(`#f-${f.check_id}`).isVisible());
    const pdf = path.join(ARTIFACTS, `audit-report-${report.order_id}.pdf`);
    await page.pdf({ path: pdf, format: 'A4', printBackground: true });
    assert.ok(fs.statSync(pdf).size > 10_000, `PDF written: ${pdf}`);
    assert.deepEqual(problems, []);
    await page.close();
    console.log(`# report screenshot: ${shot}\n# report PDF: ${pdf}`);
  });
});
