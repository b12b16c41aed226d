import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page, chromium as playwright } from 'playwright-core';
import { GUIDES } from '../../../api/pages/docs.ts';
import { takeToken } from '../../../shared/accounts/rate-limit.ts';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import type { CrawledPage } from '../../../shared/audits/crawl.ts';
import { buildReport } from '../../../shared/audits/report.ts';
import { renderReportHtml } from '../../../shared/audits/report-html.ts';
import { siteAuditModel } from '../../../shared/scan-engine/models/site-audit.ts';
import { findChromium, STANDARD_ARGS } from '../../../worker/browser/chromium.ts';
import { startTestApi, type TestApi } from '../../helpers/api.ts';
import { html, page as pageArtifact, resources, robots, sitemap } from '../../helpers/artifact-factory.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import { signedInPerson } from '../../helpers/console.ts';

// docs/console.md promises that every page fits a 375 px phone: this walks the pages a person
// reaches without an account (the console's own pages are walked signed in by
// console-browser.test.ts and console-b-browser.test.ts), a B site's event stream and scan pages
// with long paths and user agents, and an audit report full of long URLs, and fails on any
// sideways scroll.

const installed = findChromium();
const WIDTH = 375;
let t: TestApi;
let browser: Browser;

before(async () => {
  if (!installed) return;
  t = await startTestApi();
  browser = await playwright.launch({ executablePath: installed.path, args: [...STANDARD_ARGS] });
});
after(async () => {
  await browser?.close();
  await t?.close();
});

async function phone(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 }, isMobile: true });
  return context.newPage();
}

/** Elements wider than the screen, to say which one breaks the layout. */
async function overflow(page: Page): Promise<{ width: number; culprits: string[] }> {
  return page.evaluate((max) => {
    const culprits: string[] = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.right > max + 1 && culprits.length < 5)
        culprits.push(`${el.tagName.toLowerCase()}.${el.className} (${Math.round(r.right)}px)`);
    }
    return { width: document.documentElement.scrollWidth, culprits };
  }, WIDTH);
}

async function assertFits(page: Page, what: string): Promise<void> {
  const { width, culprits } = await overflow(page);
  assert.ok(width <= WIDTH, `${what} is ${width}px wide at ${WIDTH}px: ${culprits.join(', ')}`);
}

describe('every page at 375 px', { skip: skipUnlessBrowser(installed) }, () => {
  it('the public pages (with the service status and MCP pages) and every guide under /docs', async () => {
    const page = await phone();
    const paths = [
      '/',
      '/signin',
      '/signup',
      '/reset',
      '/status',
      '/mcp',
      ...GUIDES.map((g) => `/docs/guides/${g.name}`),
    ];
    for (const p of paths) {
      const res = await page.goto(`${t.url}${p}`);
      assert.equal(res?.status(), 200, p);
      await assertFits(page, p);
    }
  });

  it('the API reference at /docs', async () => {
    const page = await phone();
    await page.goto(`${t.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    await assertFits(page, '/docs');
  });

  it('a B site’s event stream and citability scan pages (progress, limit reached)', async () => {
    const me = await signedInPerson(t, 'phone-b@console.test', { tier: 'intelligence' });
    const made = await registerSite(t.handle.db, {
      accountId: me.accountId,
      url: `https://a-rather-long-shop-name.example.test/${'catalogue-'.repeat(6)}`,
      label: 'A shop with a rather long label for a phone',
    });
    const id = made.site.id;
    const ua = `Mozilla/5.0 (compatible; GPTBot/1.1; +https://openai.com/gptbot) ${'x'.repeat(200)}`;
    const requests = Array.from({ length: 30 }, (_, i) => ({
      time: new Date(Date.now() - i * 1000).toISOString(),
      method: 'GET',
      path: `/collections/${'hand-made-ceramics-'.repeat(6)}${i}`,
      status: 200,
      ip: '2001:db8:85a3:0000:0000:8a2e:0370:7334',
      user_agent: ua,
    }));
    const sent = await fetch(`${t.url}/api/v1/collect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${made.ingestToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ site: made.site.tracking_id, requests }),
    });
    assert.equal(sent.status, 202, await sent.text());
    // No worker here: the scan the form asks for stays queued, so its progress page shows.
    const scan = await me.post(`/console/agent-sites/${id}/citability/scan`, { mode: 'quick' });
    assert.equal(scan.status, 303);
    const page = await phone();
    const [name, value] = me.cookie.split('=') as [string, string];
    await page.context().addCookies([{ name, value, url: t.url }]);
    for (const p of [
      `/console/agent-sites/${id}/events`,
      `/console/agent-sites/${id}/citability`,
      scan.location!,
    ]) {
      const res = await page.goto(`${t.url}${p}`);
      assert.equal(res?.status(), 200, p);
      await assertFits(page, p);
    }
    for (let i = 0; i < 100; i++) await takeToken(t.handle.db, `account:${me.accountId}`, 100);
    await page.goto(`${t.url}/console/agent-sites/${id}/citability`);
    await page.getByRole('button', { name: /Scan .* now/ }).click();
    await page.getByText(/Your account has used its 100 calls this hour/).waitFor();
    await assertFits(page, 'the limit-reached page');
  });

  it('an audit report with long URLs, long check messages and wide tables', async () => {
    const origin = 'https://a-rather-long-shop-name.example.test';
    const long = `/collections/hand-made-ceramics/products/${'stoneware-mug-'.repeat(8)}?variant=1234567890&utm_source=newsletter`;
    const pages: CrawledPage[] = ['/', long, `${long}-2`].map((p, i) => ({
      url: `${origin}${p}`,
      depth: i ? 1 : 0,
      source: i ? 'link' : 'start',
      linkedFrom: i ? `${origin}/` : null,
      Page: pageArtifact({
        requestedUrl: `${origin}${p}`,
        finalUrl: `${origin}${p}`,
        html: html(`<main><img src="/${'x'.repeat(120)}.png"><p>text</p></main>`, '<title>t</title>'),
      }),
      Resources: resources(),
    }));
    const report = buildReport({
      orderId: 'ao_phone',
      product: { id: 'accessibility_audit', name: 'Accessibility Audit' },
      targetUrl: `${origin}/`,
      model: siteAuditModel,
      dimensionId: 'accessibility',
      crawl: {
        origin,
        robots: { ...robots('User-agent: *\nAllow: /\n'), url: `${origin}/robots.txt` },
        sitemap: sitemap({ sources: [`${origin}/sitemap.xml`] }),
        crawlDelaySeconds: null,
        pages,
        skipped: {
          disallowedByRobots: [],
          notHtml: [],
          errors: [],
          offSite: 0,
          notVisited: 0,
          duplicates: [],
        },
        durationMs: 1500,
      },
      maxPages: 25,
      full: new Map(),
      generatedAt: new Date('2026-11-28T10:00:00Z'),
    });
    const page = await phone();
    await page.setContent(renderReportHtml(report, { jsonHref: 'report.json?token=abc' }));
    await assertFits(page, 'the audit report');
  });
});
