import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SlimLhr } from '../../../../shared/scan-engine/browser.ts';
import { reduceLighthouseReport } from '../../../../shared/scan-engine/gatherers/lighthouse.ts';

const base: SlimLhr = {
  lighthouseVersion: '12.8.2',
  categories: {
    performance: { id: 'performance', title: 'Performance', score: 0.87 },
    seo: { id: 'seo', title: 'SEO', score: null },
  },
  audits: {
    'largest-contentful-paint': {
      id: 'largest-contentful-paint',
      title: 'Largest Contentful Paint',
      score: 0.9,
      scoreDisplayMode: 'numeric',
      numericValue: 2100.5,
      displayValue: '2.1 s',
    },
    'is-crawlable': {
      id: 'is-crawlable',
      title: 'Page is not blocked from indexing',
      score: 1,
      scoreDisplayMode: 'binary',
    },
  },
  timing: { total: 5000 },
};

describe('reduceLighthouseReport', () => {
  it('keeps category scores (null when unscored) and audit scores, values and titles', () => {
    const a = reduceLighthouseReport(base);
    assert.equal(a.lighthouseVersion, '12.8.2');
    assert.deepEqual(a.categories, { performance: 0.87, seo: null });
    assert.deepEqual(a.audits['largest-contentful-paint'], {
      score: 0.9,
      title: 'Largest Contentful Paint',
      scoreDisplayMode: 'numeric',
      numericValue: 2100.5,
      displayValue: '2.1 s',
    });
    // Absent values stay absent rather than becoming undefined keys in stored JSON.
    assert.deepEqual(Object.keys(a.audits['is-crawlable']!).sort(), ['score', 'scoreDisplayMode', 'title']);
    assert.equal(a.runtimeError, undefined);
  });

  it('carries a runtime error (e.g. the page answered 404) alongside whatever was scored', () => {
    const a = reduceLighthouseReport({
      ...base,
      runtimeError: {
        code: 'ERRORED_DOCUMENT_REQUEST',
        message: 'Lighthouse was unable to reliably load the page (Status code: 404)',
      },
    });
    assert.match(a.runtimeError!, /^ERRORED_DOCUMENT_REQUEST: .*404/);
  });
});
