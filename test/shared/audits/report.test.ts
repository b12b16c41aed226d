import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CrawledPage, CrawlResult } from '../../../shared/audits/crawl.ts';
import {
  type AuditReport,
  buildReport,
  buildReportYielding,
  guidance,
  SEVERITIES,
  severityOf,
} from '../../../shared/audits/report.ts';
import { renderReportHtml } from '../../../shared/audits/report-html.ts';
import { escapeHtml } from '../../../shared/html.ts';
import type { PageArtifact } from '../../../shared/scan-engine/artifacts.ts';
import { siteAuditModel } from '../../../shared/scan-engine/models/site-audit.ts';
import { html, page, resources, robots, sitemap } from '../../helpers/artifact-factory.ts';

const ORIGIN = 'https://shop.example.test';
const HEAD = (title: string, description?: string) =>
  `<title>${title}</title><meta name="viewport" content="width=device-width, initial-scale=1">${description ? `<meta name="description" content="${description}">` : ''}<link rel="canonical" href="${ORIGIN}/">`;
const DESCRIPTION =
  'Hand-made ceramics from a small studio in Devon: mugs, bowls and plates, fired in small batches.';

function crawled(
  path: string,
  markup: string,
  overrides: Partial<PageArtifact> = {},
  linkedFrom: string | null = `${ORIGIN}/`,
): CrawledPage {
  const url = `${ORIGIN}${path}`;
  return {
    url,
    depth: path === '/' ? 0 : 1,
    source: path === '/' ? 'start' : 'link',
    linkedFrom: path === '/' ? null : linkedFrom,
    Page: page({ requestedUrl: url, finalUrl: url, html: markup, ...overrides }),
    Resources: resources(),
  };
}

function crawlOf(pages: CrawledPage[], robotsBody = 'User-agent: *\nAllow: /\n'): CrawlResult {
  return {
    origin: ORIGIN,
    robots: { ...robots(robotsBody), url: `${ORIGIN}/robots.txt` },
    sitemap: sitemap({ sources: [`${ORIGIN}/sitemap.xml`] }),
    crawlDelaySeconds: null,
    pages,
    skipped: {
      disallowedByRobots: [`${ORIGIN}/private/`],
      notHtml: [],
      errors: [],
      offSite: 0,
      notVisited: 0,
      duplicates: [],
    },
    durationMs: 1500,
  };
}

function report(dimensionId: string, crawl: CrawlResult): AuditReport {
  return buildReport({
    orderId: 'ao_test',
    product: { id: `${dimensionId}_audit`, name: 'Test Audit' },
    targetUrl: `${ORIGIN}/`,
    model: siteAuditModel,
    dimensionId,
    crawl,
    maxPages: 25,
    full: new Map(),
    generatedAt: new Date('2026-02-03T04:05:06Z'),
  });
}

const allFindings = (r: AuditReport) => SEVERITIES.flatMap((s) => r.findings[s]);
const finding = (r: AuditReport, id: string) => allFindings(r).find((f) => f.check_id === id);

describe('audit report', () => {
  const crawl = crawlOf([
    crawled(
      '/',
      html(
        '<main><h1>Ceramics</h1><p>Mugs and bowls.</p></main>',
        HEAD('Ceramics studio in Devon', DESCRIPTION),
      ),
    ),
    crawled('/about', html('<main><h1>About</h1><p>Two potters.</p></main>', HEAD('About the studio'))),
    crawled('/mugs', html('<main><h1>Mugs</h1><p>Stoneware mugs.</p></main>', HEAD('Mugs', DESCRIPTION))),
    crawled('/old-sale', 'Not found', { status: 404, contentType: 'text/plain' }),
  ]);
  const seo = report('seo', crawl);

  it('is the same report when built page by page, yielding to the event loop between pages', async () => {
    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const yielding = await buildReportYielding({
      orderId: 'ao_test',
      product: { id: 'seo_audit', name: 'Test Audit' },
      targetUrl: `${ORIGIN}/`,
      model: siteAuditModel,
      dimensionId: 'seo',
      crawl,
      maxPages: 25,
      full: new Map(),
      generatedAt: new Date('2026-02-03T04:05:06Z'),
    });
    ticking = false;
    assert.deepEqual(yielding, seo);
    assert.ok(
      ticks >= crawl.pages.length - 1,
      `${ticks} turns of the event loop over ${crawl.pages.length} pages`,
    );
  });

  it('names each affected URL with its own page message, and only the affected ones', () => {
    const description = finding(seo, 'seo-meta-description');
    assert.ok(description, 'missing meta description is a finding');
    assert.deepEqual(
      description.affected.map((a) => a.url),
      [`${ORIGIN}/about`],
    );
    assert.equal(description.affected_count, 1);
    assert.match(description.affected[0]!.message, /missing/i);
    assert.equal(description.title, 'Meta description is missing');
    assert.ok(description.how_to_fix.length > 0);
  });

  it('treats an error page as a broken link: critical, with where it was linked from, and unscored', () => {
    const broken = finding(seo, 'seo-http-status');
    assert.ok(broken);
    assert.equal(broken.severity, 'critical', 'a failing gate check is critical');
    assert.deepEqual(
      broken.affected.map((a) => a.url),
      [`${ORIGIN}/old-sale`],
    );
    assert.match(broken.affected[0]!.message, /404.*linked from https:\/\/shop\.example\.test\//);
    const gone = seo.pages.find((p) => p.url.endsWith('/old-sale'))!;
    assert.equal(gone.score, null);
    // The error page is not judged by the other checks (it has no title, but that is not news).
    assert.ok(!finding(seo, 'seo-title')?.affected.some((a) => a.url.endsWith('/old-sale')));
  });

  it('scores the report as the mean of the scored pages and grades it', () => {
    const scored = seo.pages.flatMap((p) => (p.score === null ? [] : [p.score]));
    assert.equal(scored.length, 3);
    assert.equal(seo.score, Math.round(scored.reduce((a, b) => a + b, 0) / scored.length));
    assert.ok(
      seo.pages.find((p) => p.url.endsWith('/about'))!.score! <
        seo.pages.find((p) => p.url.endsWith('/mugs'))!.score!,
    );
    assert.match(seo.grade!, /^[A-F]$/);
  });

  it('groups findings by severity, most costly first, and counts them', () => {
    for (const s of SEVERITIES) {
      assert.equal(seo.counts[s], seo.findings[s].length);
      for (const f of seo.findings[s]) assert.equal(f.severity, s);
      const costs = seo.findings[s].map((f) => f.points_lost);
      assert.deepEqual(
        costs,
        [...costs].sort((a, b) => b - a),
      );
    }
    assert.match(
      seo.summary,
      /^Test Audit of https:\/\/shop\.example\.test: score \d+\/100 \(grade [A-F]\) across 4 pages\./,
    );
    assert.match(seo.summary, /Most important: Page answers with an HTTP error/);
  });

  it('judges site-wide files once, attributed to the file', () => {
    const noRobots = report('seo', crawlOf(crawl.pages, ''));
    const robotsFinding = allFindings(noRobots).find((f) => f.scope === 'site');
    const r = noRobots.passes.find((p) => p.check_id === 'seo-robots-txt');
    // Either robots.txt is a site-wide finding on its URL, or it passed once; never once per page.
    if (robotsFinding)
      assert.deepEqual(
        robotsFinding.affected.map((a) => a.url),
        [`${ORIGIN}/robots.txt`],
      );
    else assert.equal(r?.pages, 1);
    assert.equal(seo.passes.find((p) => p.check_id === 'seo-sitemap')?.pages, 1);
  });

  it('uses the Observatory penalty as the cost of a security finding', () => {
    const security = report('security', crawl);
    const csp = finding(security, 'content-security-policy');
    assert.ok(csp, 'no CSP header on the fixture pages');
    assert.equal(csp.points_lost, 25);
    assert.equal(csp.severity, 'critical');
    assert.equal(csp.affected_count, 3, 'every scored page lacks it; the error page is not judged');
  });

  it('severity thresholds and guidance split', () => {
    assert.deepEqual([30, 25, 12, 10, 5, 4, 3.9, 0].map(severityOf), [
      'critical',
      'critical',
      'high',
      'high',
      'medium',
      'medium',
      'low',
      'low',
    ]);
    assert.deepEqual(guidance('Search engines use it. Write one of 50-160 characters.'), {
      why: 'Search engines use it.',
      how: 'Write one of 50-160 characters.',
    });
    assert.deepEqual(guidance('Give every button a name (e.g. an aria-label).'), {
      why: null,
      how: 'Give every button a name (e.g. an aria-label).',
    });
  });
});

describe('report HTML', () => {
  // The site's own markup reaches the report through check messages ("e.g. <img src=...>").
  const hostile = '<img src="/x.png?q=&quot;><script>alert(1)</script>">';
  const crawl = crawlOf([
    crawled('/', html(`<main><h1>Gallery</h1>${hostile}</main>`, HEAD('Gallery', DESCRIPTION))),
    crawled('/search?q=a&b=c', html('<p>no heading</p>', '<title>Search</title>')),
  ]);
  const r = report('accessibility', crawl);
  const out = renderReportHtml(r, { jsonHref: 'report.json?token=abc' });

  it('is one self-contained page: no scripts, no external resources', () => {
    assert.doesNotMatch(out, /<script/i);
    assert.doesNotMatch(out, /<img/i);
    assert.doesNotMatch(out, /<[^>]*\ssrc=/i);
    assert.doesNotMatch(out, /<link\s/i);
    assert.doesNotMatch(out, /@import|url\(/i);
    assert.match(out, /<meta name="referrer" content="no-referrer">/);
    assert.match(out, /<style>[\s\S]*@media print/);
  });

  it('escapes what comes from the site and shows every finding with its URLs', () => {
    const alt = finding(r, 'a11y-image-alt');
    assert.ok(alt, 'the image without alt text is a finding');
    assert.match(alt.affected[0]!.message, /<img/, 'the message quotes the markup');
    assert.ok(
      out.includes('&#60;img src=&#34;/x.png'),
      'and the page shows it as text (shared/html.ts escapes)',
    );
    for (const f of allFindings(r)) {
      assert.ok(out.includes(`id="f-${f.check_id}"`), f.check_id);
      for (const a of f.affected.slice(0, 25)) assert.ok(out.includes(`href="${escapeHtml(a.url)}"`), a.url);
    }
    assert.ok(out.includes('href="report.json?token=abc"'));
    assert.match(out, new RegExp(`Grade ${r.grade}`));
  });
});
