import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  ArtifactSet,
  GatherError,
  LighthouseArtifact,
  PageArtifact,
  RenderedArtifact,
  RenderedViewport,
  ResourceEntry,
  ResourcesArtifact,
  RobotsTxtArtifact,
  SitemapArtifact,
} from '../../shared/scan-engine/artifacts.ts';
import type { Check } from '../../shared/scan-engine/check.ts';
import { type CheckRun, runCheck } from '../../shared/scan-engine/engine.ts';

// Small builders for artifacts, so a check test states only what matters to its case. Defaults
// describe an ordinary healthy page on https://example.test/ fetched on 1 July 2025.

export const TEST_URL = 'https://example.test/';
export const TEST_DATE = 'Tue, 01 Jul 2025 12:00:00 GMT';

/** An HTML document: head and body markup, <html> attributes (lang="en" unless given). */
export function html(
  body: string,
  head = '<title>Example page title</title>',
  htmlAttrs = 'lang="en"',
): string {
  return `<!doctype html><html ${htmlAttrs}><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}

export function page(overrides: Partial<PageArtifact> = {}): PageArtifact {
  const body = overrides.html ?? html('<h1>Example</h1><p>Hello.</p>');
  return {
    requestedUrl: overrides.finalUrl ?? TEST_URL,
    finalUrl: TEST_URL,
    redirectChain: [],
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', date: TEST_DATE },
    setCookies: [],
    tls: {
      protocol: 'TLSv1.3',
      cipher: 'TLS_AES_128_GCM_SHA256',
      validTo: '2026-01-01T00:00:00Z',
      authorized: true,
    },
    contentType: 'text/html; charset=utf-8',
    html: body,
    truncated: false,
    timings: { ttfbMs: 150, totalMs: 250 },
    bytes: { transferred: Math.round(body.length / 3), decoded: body.length },
    contentEncoding: 'br',
    httpRedirectsToHttps: true,
    ...overrides,
  };
}

/** A Page whose only interesting part is its HTML. */
export const htmlPage = (markup: string, overrides: Partial<PageArtifact> = {}) =>
  page({ ...overrides, html: markup });

export function resource(overrides: Partial<ResourceEntry> = {}): ResourceEntry {
  return {
    url: `${TEST_URL}assets/app.js`,
    type: 'script',
    status: 200,
    bytes: 20_000,
    contentType: 'text/javascript',
    contentEncoding: 'br',
    cacheControl: 'public, max-age=31536000, immutable',
    renderBlocking: false,
    sameOrigin: true,
    ...overrides,
  };
}

export function resources(entries: Partial<ResourceEntry>[] = [], skipped = 0): ResourcesArtifact {
  return { entries: entries.map(resource), skipped };
}

export function robots(body: string, status: number | null = 200): RobotsTxtArtifact {
  return { url: `${TEST_URL}robots.txt`, status, contentType: 'text/plain', body };
}

export function sitemap(overrides: Partial<SitemapArtifact> = {}): SitemapArtifact {
  return {
    sources: [`${TEST_URL}sitemap.xml`],
    found: true,
    urls: [TEST_URL],
    urlCount: 1,
    lastmods: [],
    errors: [],
    ...overrides,
  };
}

export function viewport(overrides: Partial<RenderedViewport> = {}): RenderedViewport {
  return {
    width: 375,
    height: 667,
    scrollWidth: 375,
    tapTargets: { total: 20, tooSmall: 0, examples: [] },
    smallTextRatio: 0,
    aboveFoldText: '',
    aboveFoldCtas: [],
    ...overrides,
  };
}

export function rendered(overrides: Partial<RenderedArtifact> = {}): RenderedArtifact {
  return {
    finalUrl: TEST_URL,
    html: html('<h1>Example</h1>'),
    visibleText: 'Example',
    title: 'Example page title',
    consoleErrors: [],
    failedRequests: [],
    blockedRequests: [],
    desktop: viewport({ width: 1366, height: 768, scrollWidth: 1366 }),
    mobile: viewport(),
    axe: { violations: [], passes: ['image-alt', 'label', 'color-contrast'], incomplete: [] },
    timings: { loadMs: 800 },
    ...overrides,
  };
}

/** A Lighthouse report with the given category scores (0..1) and metric values. */
export function lighthouse(
  categories: Record<string, number | null> = {},
  metrics: Record<string, number> = {},
): LighthouseArtifact {
  const audits: LighthouseArtifact['audits'] = {};
  for (const [id, numericValue] of Object.entries(metrics)) {
    audits[id] = { score: null, numericValue, title: id, scoreDisplayMode: 'numeric' };
  }
  return { lighthouseVersion: '12.8.2', categories, audits };
}

export const gatherError = (message: string): GatherError => ({ error: { message } });

/** Runs one check through the engine's runner (artifact gate and error isolation included). */
export function run(check: Check, artifacts: ArtifactSet): CheckRun {
  return runCheck(check, artifacts);
}

export interface Expectation {
  outcome: CheckRun['outcome'];
  /** The message must match (issues and passes are what users read). */
  message?: RegExp;
  /** Inclusive score bounds. */
  score?: [number, number];
}

/** Runs a check and asserts the outcome, message and score range of one table row. */
export function expectRun(check: Check, artifacts: ArtifactSet, want: Expectation): CheckRun {
  const got = run(check, artifacts);
  const label = `${check.meta.id}: ${got.outcome} ${got.score.toFixed(2)} "${got.message}"`;
  assert.equal(got.outcome, want.outcome, label);
  if (want.message) assert.match(got.message, want.message, label);
  if (want.score) {
    assert.ok(got.score >= want.score[0] && got.score <= want.score[1], `${label} not in [${want.score}]`);
  }
  return got;
}

export type CaseRow = [name: string, artifacts: ArtifactSet, want: Expectation];

/** A table of cases for one check: one test per row, grouped under the check id. */
export function checkTable(check: Check, rows: CaseRow[]): void {
  describe(check.meta.id, () => {
    for (const [name, artifacts, want] of rows) {
      it(name, () => {
        expectRun(check, artifacts, want);
      });
    }
  });
}
