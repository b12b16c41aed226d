import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ArtifactSet } from '../../shared/scan-engine/artifacts.ts';
import { allChecks } from '../../shared/scan-engine/checks/index.ts';
import { type DimensionScore, runChecks, scoreModel } from '../../shared/scan-engine/engine.ts';
import { siteAuditModel } from '../../shared/scan-engine/models/site-audit.ts';
import { htmlPage, robots } from '../helpers/artifact-factory.ts';

// Real pages nobody on the team wrote, scored in quick mode from Page artifacts built from the
// corpus files (as if served from 127.0.0.1 over plain HTTP), with the folder's robots.txt.
const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SITES = path.join(CORPUS, 'static-sites');
const skip = !existsSync(SITES) && `corpus not found at ${SITES}`;

function quickScan(file: string): Record<string, DimensionScore> {
  const html = readFileSync(path.join(SITES, file), 'utf8');
  const url = `http://127.0.0.1:8080/${file}`;
  const robotsFile = path.join(SITES, file.split('/')[0] as string, 'robots.txt');
  const artifacts: ArtifactSet = {
    Page: htmlPage(html, {
      requestedUrl: url,
      finalUrl: url,
      tls: null,
      contentEncoding: null,
      httpRedirectsToHttps: null,
    }),
    RobotsTxt: existsSync(robotsFile) ? robots(readFileSync(robotsFile, 'utf8')) : robots('', 404),
  };
  const score = scoreModel(siteAuditModel, runChecks(allChecks, artifacts));
  return Object.fromEntries(score.dimensions.map((d) => [d.id, d]));
}

describe('site audit on the W3C Before-and-After Demo', { skip }, () => {
  // W3C's own evaluation: every "after" page passes all 61 WCAG 2.0 criteria; the "before" pages
  // fail 27 or more. Quick mode (markup only) must already separate them clearly.
  for (const name of ['home', 'news', 'tickets', 'survey', 'template']) {
    it(`${name}: the repaired page scores accessibility at least 25 points above the original`, () => {
      const before = quickScan(`w3c-bad-demo/before/${name}.html`).accessibility;
      const after = quickScan(`w3c-bad-demo/after/${name}.html`).accessibility;
      assert.ok(before?.score != null && after?.score != null);
      assert.ok(
        after.score >= before.score + 25,
        `before ${before.score}, after ${after.score}; before issues: ${before.issues.join(' | ')}`,
      );
    });
  }

  it('names the failures W3C lists for the original home page', () => {
    const issues = quickScan('w3c-bad-demo/before/home.html').accessibility?.issues.join('\n') ?? '';
    // 1.1.1 missing text alternatives, 3.1.1 no page language, 3.2.2 jump menu, 2.4.7 blur on focus,
    // 1.3.1 layout tables, 4.1.2 unlabelled select.
    for (const pattern of [
      /images have no alt text/,
      /<html> has no lang attribute/,
      /navigates as soon/,
      /blur\(\)/,
      /tables have no header cells/,
      /form fields have no label/,
    ]) {
      assert.match(issues, pattern);
    }
  });
});

describe('site audit on the MDN accessibility assessment', { skip }, () => {
  it('the finished page scores above the starting page, whose missing alt text and fake headings are named', () => {
    const start = quickScan('mdn-a11y-assessment/start/index.html').accessibility;
    const finished = quickScan('mdn-a11y-assessment/finished/index.html').accessibility;
    assert.ok(
      (finished?.score ?? 0) >= (start?.score ?? 100) + 10,
      `start ${start?.score}, finished ${finished?.score}`,
    );
    const issues = start?.issues.join('\n') ?? '';
    assert.match(issues, /2 of 2 images have no alt text/);
    assert.match(issues, /headings only styled as such \("Welcome to our wildlife website"\)/);
    assert.match(issues, /tables have no header cells/);
  });

  for (const pair of ['form', 'links', 'semantics']) {
    it(`good-${pair} scores above bad-${pair}`, () => {
      const bad = quickScan(`mdn-a11y-assessment/html-good-bad-pairs/bad-${pair}.html`).accessibility;
      const good = quickScan(`mdn-a11y-assessment/html-good-bad-pairs/good-${pair}.html`).accessibility;
      assert.ok((good?.score ?? 0) > (bad?.score ?? 100), `bad ${bad?.score}, good ${good?.score}`);
    });
  }
});

describe('site audit on the HTML5 Boilerplate skeleton', { skip }, () => {
  it('lists the empty title, description and language as SEO issues in plain words', () => {
    const seo = quickScan('h5bp-boilerplate-dist/index.html').seo;
    const issues = seo?.issues ?? [];
    assert.ok(
      issues.some((i) => i.startsWith('Page has no <title>')),
      issues.join(' | '),
    );
    assert.ok(
      issues.some((i) => i.startsWith('Meta description is missing')),
      issues.join(' | '),
    );
    assert.ok(
      issues.some((i) => i.startsWith('<html> has no lang attribute')),
      issues.join(' | '),
    );
    // Its permissive robots.txt is not held against it.
    assert.ok(seo?.passes.some((p) => p.startsWith('robots.txt is valid')));
  });
});

describe('site audit on the Start Bootstrap landing page', { skip }, () => {
  it('finds the call to action and the signup form among the conversion passes', () => {
    const conversion = quickScan('startbootstrap-landing-page/index.html').conversion;
    const passes = conversion?.passes ?? [];
    assert.ok(
      passes.some((p) => /call to action/i.test(p) && p.includes('"Sign Up"')),
      passes.join(' | '),
    );
    assert.ok(
      passes.some((p) => /signup form/i.test(p)),
      passes.join(' | '),
    );
  });

  it('flags its dead "Contact" link and placeholder testimonial alt text', () => {
    const scan = quickScan('startbootstrap-landing-page/index.html');
    assert.ok(scan.conversion?.issues.some((i) => i.includes('"Contact" link goes nowhere')));
    assert.ok(scan.content?.issues.some((i) => i.includes('placeholder such as "..."')));
  });
});

describe('site audit on every corpus page', { skip }, () => {
  it('runs every check without an error and scores every dimension', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.html')) files.push(path.relative(SITES, full));
      }
    };
    walk(SITES);
    assert.ok(files.length > 100);
    for (const file of files) {
      for (const d of Object.values(quickScan(file))) {
        const errors = d.checks.filter((c) => c.outcome === 'error').map((c) => `${c.id}: ${c.message}`);
        assert.deepEqual(errors, [], file);
        assert.ok(d.score !== null && d.score >= 0 && d.score <= 100, `${file} ${d.id}`);
      }
    }
  });
});
