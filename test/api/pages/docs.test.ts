import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium as playwright } from 'playwright-core';
import { headingSlug, rewriteHref } from '../../../api/pages/docs.ts';
import { findChromium, STANDARD_ARGS } from '../../../worker/browser/chromium.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';

// /docs: the API reference (Swagger UI from node_modules, drawn from /openapi.json) and the
// guides rendered from docs/*.md, all from this origin under a CSP without inline scripts.

const installed = findChromium();
// Written under test-results/ (a run never dirties the tree); docs/img/docs-reference.png is a copy.
const SCREENSHOT = path.resolve('test-results/docs-reference.png');

let t: TestApi;

before(async () => {
  t = await startTestApi();
});
after(async () => {
  await t?.close();
});

describe('/docs', () => {
  it('serves the reference page with a strict CSP and only same-origin scripts', async () => {
    const res = await fetch(`${t.url}/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/);
    const page = await res.text();
    const scripts = [...page.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length >= 2);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs!, /src="\/docs\/assets\//, 'every script is a file of this origin');
      assert.equal(body, '', 'no inline script');
    }
    for (const href of page.match(/\/docs\/guides\/[a-z-]+/g) ?? []) {
      assert.equal((await fetch(t.url + href)).status, 200, href);
    }
    const bundle = await fetch(`${t.url}/docs/assets/swagger-ui-bundle.js`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
  });

  it('renders a guide from docs/*.md with links between guides pointing at /docs', async () => {
    const res = await fetch(`${t.url}/docs/guides/architecture`);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /<h1 id="architecture">Architecture<\/h1>/);
    assert.match(page, /<table>/);
    assert.match(page, /<code>shared\/scan-engine\/<\/code>/);
    assert.doesNotMatch(page, /<script/);
  });

  it('serves every guide in docs/ from its menu: none answers 404', async () => {
    const files = (await readdir('docs')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
    const menu = await (await fetch(`${t.url}/docs`)).text();
    for (const name of files) {
      assert.ok(menu.includes(`href="/docs/guides/${name}"`), `${name} is in the menu`);
      const res = await fetch(`${t.url}/docs/guides/${name}`);
      assert.equal(res.status, 200, name);
    }
  });

  it('gives headings GitHub’s anchors, so the pages’ links to a section land on it', async () => {
    assert.equal(headingSlug('Which score is which'), 'which-score-is-which');
    assert.equal(
      headingSlug('Site audit (variant A, `site-audit` 1.1.0)'),
      'site-audit-variant-a-site-audit-110',
    );
    const page = await (await fetch(`${t.url}/docs/guides/scoring`)).text();
    assert.match(page, /<h2 id="which-score-is-which">Which score is which<\/h2>/);
  });

  it('answers an unknown guide, asset or a path outside docs/ with 404', async () => {
    for (const p of [
      '/docs/guides/nope',
      '/docs/assets/package.json',
      '/docs/assets/..%2F..%2Fpackage.json',
      '/docs/img/..%2Farchitecture.md',
      '/docs/img/nope.png',
    ]) {
      const res = await call(t.url, p);
      assert.ok([400, 404].includes(res.status), `${p}: ${res.status}`);
      assert.equal(res.body.type === undefined, false, 'problem+json');
    }
  });

  it('points links between guides and to images at their /docs pages, leaves others alone', () => {
    assert.equal(rewriteHref('monitoring.md'), '/docs/guides/monitoring');
    assert.equal(rewriteHref('./scoring.md#weights'), '/docs/guides/scoring#weights');
    assert.equal(rewriteHref('img/docs-reference.png'), '/docs/img/docs-reference.png');
    assert.equal(rewriteHref('https://example.com/a.md'), 'https://example.com/a.md');
    assert.equal(rewriteHref('../README.md'), '../README.md');
    assert.equal(rewriteHref('#top'), '#top');
  });

  it('shows every operation of /openapi.json in Chromium, with no CSP or console errors; screenshot saved', {
    skip: skipUnlessBrowser(installed),
  }, async () => {
    const spec = (await call(t.url, '/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(spec.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    assert.ok(operations.length > 10);

    const browser = await playwright.launch({ executablePath: installed!.path, args: [...STANDARD_ARGS] });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
      const problems: string[] = [];
      const foreign: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
      page.on('response', (r) => {
        if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
      });
      page.on('request', (r) => {
        if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) foreign.push(r.url());
      });
      const res = await page.goto(`${t.url}/docs`, { waitUntil: 'load' });
      assert.equal(res?.status(), 200);
      await page.locator('.opblock').first().waitFor({ state: 'visible' });
      const shown = await page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => {
          const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
          const p = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
          return `${method} ${p}`;
        }),
      );
      assert.deepEqual([...shown].sort(), [...operations].sort());
      assert.ok(await page.getByText('Sightline', { exact: false }).first().isVisible());
      await page.screenshot({ path: SCREENSHOT });
      assert.deepEqual(problems, []);
      assert.deepEqual(foreign, [], 'nothing is loaded from another origin');

      // A guide, reached from the reference page's navigation.
      await page.getByRole('link', { name: 'Monitoring' }).first().click();
      await page.waitForURL(/\/docs\/guides\/monitoring$/);
      assert.ok(await page.locator('main.guide h1').isVisible());
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});
