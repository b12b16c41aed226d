import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { citabilityText } from '../../api/mcp/tools/get-citability-score.ts';
import { band, gradeLegend } from '../../api/pages/status-page.ts';
import { scoreCitability } from '../../shared/geo-scoring/citability.ts';
import { measure } from '../../shared/monitoring/watch-kind.ts';
import { createUrlPolicy } from '../../shared/net/url-policy.ts';
import { gradeFor } from '../../shared/scan-engine/model.ts';
import { monitoringModel } from '../../shared/scan-engine/models/monitoring.ts';
import { SCAN_MODELS } from '../../shared/scan-engine/score.ts';
import { EXTENSION_TESTS, OBSERVATORY_TESTS } from '../../shared/scan-engine/security/score-table.ts';
import { runScan } from '../../shared/scans/gather-and-score.ts';
import { htmlPage } from '../helpers/artifact-factory.ts';
import { startFixtureServer } from '../helpers/fixture-server.ts';

// Issue 14, presentation slips a new user saw: security passes worded as absences, duplicated
// issues in a monitoring scan, a status page calling 52 "Grade F" under a legend calling 50-89
// "needs work", and the citability text saying its first sentence twice.

describe('presentation', () => {
  it('no security pass is worded as an absence ("No Referrer-Policy")', () => {
    const specs = [...Object.values(OBSERVATORY_TESTS), ...Object.values(EXTENSION_TESTS)].flatMap((t) =>
      Object.entries(t),
    );
    assert.ok(specs.length > 50);
    for (const [id, spec] of specs)
      if (spec.pass) assert.doesNotMatch(spec.summary, /^No\b/, `${id}: ${spec.summary}`);
  });

  it('a monitoring scan lists each issue once (the meta description is SEO and copy)', async () => {
    const site = await startFixtureServer({
      root: path.resolve('test/fixtures/sites/quick-site'),
    });
    try {
      const out = await runScan(new URL(site.url), 'quick', {
        policy: createUrlPolicy(`127.0.0.1:${site.port}`),
        signal: AbortSignal.timeout(30_000),
        models: [...SCAN_MODELS, monitoringModel.id],
      });
      const m = measure(out);
      assert.equal(m.status, 'ok');
      if (m.status !== 'ok') return;
      assert.equal(new Set(m.issues).size, m.issues.length, m.issues.join('\n'));
    } finally {
      await site.close();
    }
  });

  it('the status page colours a score by its grade, and the legend names the same bands', () => {
    for (const score of [0, 52, 59, 60, 75, 80, 89, 90, 100]) {
      const grade = gradeFor(monitoringModel, score);
      assert.equal(
        band(score),
        grade === 'F' ? 'poor' : grade === 'A' || grade === 'B' ? 'good' : 'fair',
        String(score),
      );
    }
    assert.equal(band(52), 'poor');
    assert.equal(gradeLegend(), 'A 90 and above, B 80-89, C 70-79, D 60-69, F below 60');
  });

  it('the citability answer says its score and grade once', () => {
    const html = readFileSync(path.resolve('test/fixtures/pages/da-bakery.html'), 'utf8');
    const url = 'https://site.test/';
    const body = scoreCitability({ Page: htmlPage(html, { requestedUrl: url, finalUrl: url }) }, url);
    const text = citabilityText(body);
    const sentences = text.split(/(?<=\.)\s+/);
    assert.equal(new Set(sentences).size, sentences.length, text);
    assert.equal(text.match(/\(grade [A-F]\)/g)?.length, 1, text);
  });
});
