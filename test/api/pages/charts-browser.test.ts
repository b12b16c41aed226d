import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page, chromium as playwright } from 'playwright-core';
import { findChromium, STANDARD_ARGS } from '../../../worker/browser/chromium.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

// The console's charts (api/pages/assets/app.js over uPlot), drawn in Chromium from the same
// data-chart JSON the pages emit: dates in the page's format (UTC), an x axis fitted to the data,
// legends that show the latest values, and y labels that stay readable at any magnitude.

const installed = findChromium();
const require = createRequire(import.meta.url);
const files: Record<string, [string, string]> = {
  '/assets/app.js': [readFileSync('api/pages/assets/app.js', 'utf8'), 'text/javascript'],
  '/assets/uplot.js': [
    readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    'text/javascript',
  ],
  '/assets/uplot.css': [readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'), 'text/css'],
};

let server: FixtureServer;
let browser: Browser;
let chartJson = '{}';

before(async () => {
  if (!installed) return;
  const routes = Object.fromEntries(
    Object.entries(files).map(([p, [body, type]]) => [
      p,
      (_q: unknown, r: import('node:http').ServerResponse) =>
        r.writeHead(200, { 'content-type': type }).end(body),
    ]),
  );
  server = await startFixtureServer({
    routes: {
      ...routes,
      '/chart': (_q, r) =>
        r.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><head>
<link rel="stylesheet" href="/assets/uplot.css"><script src="/assets/uplot.js" defer></script>
<script src="/assets/app.js" defer></script></head><body>
<div class="chart" id="c" style="width:600px" data-chart='${chartJson.replace(/'/g, '&#39;')}'></div></body></html>`),
    },
  });
  browser = await playwright.launch({ executablePath: installed.path, args: [...STANDARD_ARGS] });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

interface Drawn {
  min: number;
  max: number;
  xLabels: string[];
  yLabels: string[];
  legend: string[];
}

async function draw(page: Page, data: object): Promise<Drawn> {
  chartJson = JSON.stringify(data);
  await page.goto(`${server.origin}/chart`);
  await page.waitForSelector('#c[data-drawn]');
  return page.evaluate(() => {
    type Plot = {
      scales: { x: { min: number; max: number } };
      axes: { _values?: string[] }[];
    };
    const u = (document.getElementById('c') as unknown as { chart: Plot }).chart;
    return {
      min: u.scales.x.min,
      max: u.scales.x.max,
      xLabels: u.axes[0]?._values ?? [],
      yLabels: u.axes[1]?._values ?? [],
      legend: [...document.querySelectorAll('#c .u-legend .u-value')].map((e) => e.textContent ?? ''),
    };
  });
}

const at = (iso: string) => Date.parse(iso) / 1000;

describe('console charts', { skip: skipUnlessBrowser(installed) }, () => {
  it('draws one scan as a dot in a one-day window, with the page’s date format and its values in the legend', async () => {
    const page = await browser.newPage();
    const x = at('2026-11-28T14:05:00Z');
    const d = await draw(page, { x: [x], series: [{ label: 'Overall', values: [82] }] });
    assert.ok(d.max - d.min <= 86_400 + 1, `x spans ${(d.max - d.min) / 3600} h`);
    assert.ok(d.min < x && x < d.max);
    assert.ok(d.xLabels.length > 0);
    for (const l of d.xLabels) assert.match(l, /^(27|28|29) Nov( \d\d:\d\d)?$/, `axis label ${l}`);
    assert.deepEqual(d.legend, ['28 Nov 2026, 14:05 UTC', '82'], 'the latest values, not blanks');
    await page.close();
  });

  it('fits a 30-day axis to the 4 days that have data; counts read 1.2M, not ",000"', async () => {
    const page = await browser.newPage();
    const days = Array.from({ length: 30 }, (_, i) => at('2026-10-30T00:00:00Z') + i * 86_400);
    const values = days.map((_, i) => (i >= 26 ? 1_000_000 + i * 10_000 : null));
    const d = await draw(page, { y: 'count', x: days, series: [{ label: 'OpenAI', values }] });
    assert.ok(d.min >= days[26]! - 86_400, 'the axis starts near the first day with data');
    assert.ok(d.max <= days[29]! + 86_400);
    for (const l of d.yLabels) assert.match(l, /^(0|\d+(\.\d)?[KM]|\d{1,3})$/, `y label ${l}`);
    assert.ok(
      d.yLabels.some((l) => l.endsWith('M')),
      d.yLabels.join(' '),
    );
    for (const l of d.xLabels) assert.match(l, /^\d{1,2} (Oct|Nov)$/, `daily axis label ${l}`);
    assert.deepEqual(d.legend, ['28 Nov 2026', '1,290,000']);
    await page.close();
  });
});
