import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crawlSite } from '../../shared/audits/crawl.ts';
import { auditGrade, buildReport } from '../../shared/audits/report.ts';
import { createUrlPolicy } from '../../shared/net/url-policy.ts';
import { LETTER_GRADES } from '../../shared/scan-engine/model.ts';
import { siteAuditModel } from '../../shared/scan-engine/models/site-audit.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

// Issue 14, audit grades: an accessibility audit of W3C's Before-and-After Demo (broken pages
// scoring 44-56, their repaired copies 99) came out "87, grade B": / and /index.html were two
// pages, and the mean hid the broken half. Pages are deduplicated by final URL, canonical URL and
// document; the grade is the lower of the mean's and one band above the worst quarter's.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const BAD = path.join(CORPUS, 'static-sites', 'w3c-bad-demo');
const present = fs.existsSync(BAD);

describe('audit grading rule (pure)', () => {
  const model = { grades: LETTER_GRADES };
  it('a broken half drags the grade to one band above its own', () => {
    const g = auditGrade(model, [99, 99, 99, 99, 99, 44, 48, 50, 52, 56]);
    assert.equal(g.score, 75);
    assert.equal(g.worst, 47);
    assert.equal(g.grade, 'D'); // mean C, worst quarter F -> at best D
  });
  it('a uniform site keeps the grade of its mean', () => {
    assert.deepEqual(auditGrade(model, [91, 93, 95, 97]), { score: 94, worst: 91, grade: 'A' });
    assert.equal(auditGrade(model, [82, 85, 88]).grade, 'B');
  });
  it('no scored pages: no score and no grade', () => {
    assert.deepEqual(auditGrade(model, []), { score: null, worst: null, grade: null });
  });
});

describe('accessibility audit of the W3C Before-and-After Demo', {
  skip: present ? false : `no corpus at ${BAD}`,
}, () => {
  let server: FixtureServer;
  before(async () => {
    server = await startFixtureServer({ root: BAD });
  });
  after(() => server?.close());

  it('counts / and /index.html once, and grades by the worst pages as well as the mean', async () => {
    const crawl = await crawlSite({
      start: new URL(`${server.origin}/`),
      policy: createUrlPolicy(`127.0.0.1:${server.port}`),
      maxPages: 40,
      budgetMs: 60_000,
      concurrency: 3,
      signal: AbortSignal.timeout(60_000),
    });
    const urls = crawl.pages.map((p) => new URL(p.url).pathname);
    assert.ok(
      !(urls.includes('/') && urls.includes('/index.html')),
      `both / and /index.html audited: ${urls.join(' ')}`,
    );
    // (Broken links all answer the server's one 404 document: those are kept, each is a finding.)
    const found = crawl.pages.filter((p) => p.Page.status < 400);
    assert.equal(new Set(found.map((p) => p.Page.html)).size, found.length, 'no document audited twice');
    const report = buildReport({
      orderId: 'ord_test',
      product: { id: 'accessibility', name: 'Accessibility Audit' },
      targetUrl: `${server.origin}/`,
      model: siteAuditModel,
      dimensionId: 'accessibility',
      crawl,
      maxPages: 40,
      full: new Map(),
      generatedAt: new Date(0),
    });
    const before = report.pages.filter((p) => p.url.includes('/before/') && p.score !== null);
    const afterPages = report.pages.filter((p) => p.url.includes('/after/') && p.score !== null);
    assert.ok(
      before.length >= 3 && afterPages.length >= 3,
      `before ${before.length}, after ${afterPages.length}`,
    );
    const expected = auditGrade(
      siteAuditModel,
      report.pages.flatMap((p) => (p.score === null ? [] : [p.score])),
    );
    assert.equal(report.grade, expected.grade);
    assert.equal(report.worst_pages_score, expected.worst);
    // The broken half must show: not the B the mean alone once gave.
    assert.ok(
      !['A', 'B'].includes(report.grade!),
      `grade ${report.grade}, score ${report.score}, worst ${report.worst_pages_score}`,
    );
  });
});
