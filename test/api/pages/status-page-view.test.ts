import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderNotFoundPage, renderStatusPage } from '../../../api/pages/status-page.ts';
import type { StatusPageView } from '../../../api/presenters/monitoring.ts';
import { html, raw } from '../../../shared/html.ts';

// The status page view on its edge cases; the full page in a browser is in
// test/shared/monitoring/status-page.test.ts.

const NOW = Date.parse('2026-03-10T12:00:00Z');
type Site = StatusPageView['sites'][number];
const site = (over: Partial<Site>): Site => ({
  id: 1,
  url: 'https://shop.example/',
  label: 'Shop',
  status: 'up',
  overallScore: 72,
  grade: 'C',
  dimensionScores: { seo: 80, speed: 60, copy: 70, social: 40, local: 90, ai: 30 },
  lastScannedAt: NOW - 3 * 3_600_000,
  nextScanDueAt: NOW + 21 * 3_600_000,
  history: [{ scannedAt: NOW - 3 * 3_600_000, overallScore: 72, status: 'ok' }],
  ...over,
});
const view = (sites: Site[], alerts: StatusPageView['alerts'] = []): StatusPageView => ({
  generatedAt: NOW,
  plan: 'agency',
  scanFrequency: 'daily',
  sites,
  alerts,
});

describe('html builder', () => {
  it('escapes interpolated text but not markup it built', () => {
    const inner = html`<b>${'<i>&"\''}</b>`;
    assert.equal(
      html`<p>${inner}${raw('<br>')}${['a', '<', null, false, 3]}</p>`.value,
      '<p><b>&#60;i&#62;&#38;&#34;&#39;</b><br>a&#60;3</p>',
    );
  });
});

describe('status page view', () => {
  it('says when nothing is monitored yet', () => {
    const out = renderStatusPage(view([]));
    assert.match(out, /No sites are monitored yet/);
    assert.match(out, /No alerts so far/);
  });

  it('shows a down site as down, in the summary and on its card', () => {
    const out = renderStatusPage(
      view([
        site({
          status: 'down',
          overallScore: 0,
          grade: null,
          history: [{ scannedAt: NOW - 3_600_000, overallScore: 0, status: 'down' }],
        }),
        site({ id: 2, label: 'Blog' }),
      ]),
    );
    assert.match(out, /1 of 2 sites are down/);
    assert.match(out, /class="pill down"/);
    assert.match(out, /aria-label="Site down"/);
    assert.match(out, /class="dot down"/);
  });

  it('draws one point for a single scan and relative times from the page clock', () => {
    const out = renderStatusPage(view([site({})]));
    assert.equal((out.match(/<circle class="dot /g) ?? []).length, 1);
    assert.match(
      out,
      /Last scanned <time datetime="2026-03-10T09:00:00.000Z" title="10 Mar 2026, 09:00 UTC">3 h ago<\/time>/,
    );
    assert.match(out, /Next scan <time[^>]*>in 21 h<\/time>/);
    assert.match(out, /The site is up/);
  });

  it('escapes alert messages and site URLs', () => {
    const out = renderStatusPage(
      view(
        [site({ url: 'https://shop.example/?q="><script>x</script>' })],
        [
          {
            site: 'https://shop.example/',
            label: 'Shop',
            alert_type: 'score_drop',
            dimension: null,
            previous_score: 90,
            current_score: 60,
            delta: -30,
            message: '<img src=x onerror=alert(1)>',
            scanned_at: new Date(NOW).toISOString(),
          },
        ],
      ),
    );
    assert.ok(!out.includes('<script>x'));
    assert.ok(!out.includes('<img src=x'));
    assert.match(out, /&#60;img src=x onerror=alert\(1\)&#62;/);
  });

  it('has a 404 page in the same style', () => {
    assert.match(renderNotFoundPage(), /<title>Status page not found<\/title>/);
  });
});
