import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SECURITY_DIMENSION, securityChecks } from '../../../../shared/scan-engine/checks/security/index.ts';
import { type CheckRun, runChecks, scoreModel } from '../../../../shared/scan-engine/engine.ts';
import { LETTER_GRADES, type ScoringModel } from '../../../../shared/scan-engine/model.ts';
import {
  EXTENSION_TESTS,
  MINIMUM_SCORE_FOR_EXTRA_CREDIT,
  modifierScore,
  OBSERVATORY_TESTS,
  observatoryGrade,
  observatoryScore,
  resultSpec,
} from '../../../../shared/scan-engine/security/score-table.ts';
import { makePage, withHeaders } from '../../../helpers/security-fixtures.ts';

const MODEL: ScoringModel = {
  id: 'security-only',
  version: '1',
  description: 'test model',
  dimensions: [SECURITY_DIMENSION],
  grades: LETTER_GRADES,
};

const HARDENED = withHeaders({
  'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
  'content-security-policy': "default-src 'none'; img-src 'self'; frame-ancestors 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
});

describe('observatoryGrade', () => {
  // Observatory's chart: scores round down to a multiple of 5, capped at 100.
  const table: [score: number, grade: string][] = [
    [135, 'A+'],
    [100, 'A+'],
    [99, 'A'],
    [90, 'A'],
    [89, 'A-'],
    [85, 'A-'],
    [84, 'B+'],
    [80, 'B+'],
    [79, 'B'],
    [70, 'B'],
    [69, 'B-'],
    [65, 'B-'],
    [64, 'C+'],
    [60, 'C+'],
    [59, 'C'],
    [50, 'C'],
    [49, 'C-'],
    [45, 'C-'],
    [44, 'D+'],
    [40, 'D+'],
    [39, 'D'],
    [30, 'D'],
    [29, 'D-'],
    [25, 'D-'],
    [24, 'F'],
    [0, 'F'],
    [-30, 'F'],
  ];
  for (const [score, grade] of table) {
    it(`${score} -> ${grade}`, () => assert.equal(observatoryGrade(score), grade));
  }
});

describe('score table', () => {
  it('has one table entry per security check, and no entry without a check', () => {
    const tested = new Set([...Object.keys(OBSERVATORY_TESTS), ...Object.keys(EXTENSION_TESTS)]);
    assert.deepEqual(new Set(securityChecks.map((c) => c.meta.id)), tested);
  });

  it('gives every test at least one passing result without penalty', () => {
    for (const [test, results] of Object.entries({ ...OBSERVATORY_TESTS, ...EXTENSION_TESTS })) {
      assert.ok(
        Object.values(results).some((r) => r.pass && r.modifier >= 0),
        test,
      );
      for (const [id, r] of Object.entries(results)) {
        assert.ok(Number.isInteger(r.modifier) && r.modifier % 5 === 0, id);
        assert.ok(r.summary.length > 10, id);
      }
    }
  });

  it('rejects unknown result ids', () => {
    assert.throws(() => resultSpec('csp-made-up'), /unknown security result id/);
  });
});

describe('Observatory score from check runs', () => {
  it('adds bonuses past 100 on a hardened page', () => {
    const runs = runChecks(securityChecks, { Page: HARDENED });
    const raw = observatoryScore(runs.values());
    // CSP default-src 'none' +10, frame-ancestors +5, no-referrer +5, CORP/COOP/COEP +10 each.
    assert.equal(raw.score, 150);
    assert.equal(raw.grade, 'A+');
    assert.equal(raw.failed, 0);
    assert.equal(raw.passed, 12);
    const dim = scoreModel(MODEL, runs).dimensions[0];
    assert.equal(dim?.score, 100);
    assert.deepEqual(dim?.issues, []);
  });

  it('withholds bonuses when penalties take the base below 90', () => {
    const page = withHeaders({
      ...HARDENED.headers,
      'x-content-type-options': 'sniff', // -5
      'cross-origin-resource-policy': 'whimsy', // -5, and its +10 is gone
      'strict-transport-security': 'max-age=86400', // -10
    });
    const runs = runChecks(securityChecks, { Page: page });
    const raw = observatoryScore(runs.values());
    assert.equal(raw.score, 80);
    assert.ok(raw.score < MINIMUM_SCORE_FOR_EXTRA_CREDIT);
    assert.equal(raw.grade, 'B+');
    // The dimension (engine's `modifiers` method) agrees below 100.
    assert.equal(scoreModel(MODEL, runs).dimensions[0]?.score, 80);
    assert.equal(modifierScore(runs.values()).score, 80);
  });

  it('scores a bare https page as Observatory does', () => {
    const runs = runChecks(securityChecks, { Page: makePage() });
    // No CSP -25, no HSTS -20, no X-Frame-Options -20, no nosniff -5.
    assert.equal(observatoryScore(runs.values()).score, 30);
    assert.equal(observatoryScore(runs.values()).grade, 'D');
  });

  it('leaves our extension checks out of the Observatory score but not out of the dimension', () => {
    const page = withHeaders({ ...HARDENED.headers, server: 'Apache/2.4.41' });
    const runs = runChecks(securityChecks, { Page: page });
    assert.equal(observatoryScore(runs.values()).score, 150);
    // -5 leaves a base of 95: bonuses still count, so the dimension stays at 100.
    assert.equal(scoreModel(MODEL, runs).dimensions[0]?.score, 100);
    assert.ok(scoreModel(MODEL, runs).dimensions[0]?.issues.some((i) => i.includes('Apache/2.4.41')));
  });

  it('caps a page without HTTPS at 20 through the https gate', () => {
    const page = makePage({
      finalUrl: 'http://mozilla.org/',
      headers: { ...HARDENED.headers },
      httpRedirectsToHttps: null,
    });
    const runs = runChecks(securityChecks, { Page: page });
    const base = modifierScore(runs.values()).score;
    assert.ok(base > 20, `without the gate it would score ${base}`);
    assert.equal(scoreModel(MODEL, runs).dimensions[0]?.score, 20);
  });
});

describe('security dimension evidence', () => {
  it('keeps the raw Observatory score and grade, unclamped, beside the clamped dimension score', () => {
    const runs = runChecks(securityChecks, { Page: HARDENED });
    const dim = scoreModel(MODEL, runs).dimensions[0];
    assert.equal(dim?.score, 100);
    assert.deepEqual(dim?.evidence, {
      observatory: { score: 150, grade: 'A+', testsPassed: 12, testsFailed: 0 },
      rawScore: 150,
    });
  });

  it('keeps our extension checks out of the Observatory score but in the raw dimension score', () => {
    // Version leak -5 (ours) and no X-Content-Type-Options -5 (Observatory's): base 90, bonuses count.
    const { 'x-content-type-options': _, ...headers } = HARDENED.headers;
    const runs = runChecks(securityChecks, { Page: withHeaders({ ...headers, server: 'nginx/1.25.3' }) });
    const dim = scoreModel(MODEL, runs).dimensions[0];
    assert.deepEqual(dim?.evidence, {
      observatory: { score: 145, grade: 'A+', testsPassed: 11, testsFailed: 1 },
      rawScore: 140,
    });
    assert.equal(dim?.score, 100);
  });

  it('grades a weak page by the Observatory chart and survives the JSON round trip of a stored result', () => {
    const runs = runChecks(securityChecks, { Page: makePage() });
    const stored = JSON.parse(JSON.stringify(scoreModel(MODEL, runs)));
    assert.deepEqual(stored.dimensions[0].evidence.observatory, {
      score: 30,
      grade: 'D',
      testsPassed: 8,
      testsFailed: 4,
    });
    assert.equal(stored.dimensions[0].score, 30);
  });

  it('looks modifiers up in the score table at scoring time, not in the modifier a run carries', () => {
    const runs = runChecks(securityChecks, { Page: makePage() });
    // A stored run whose evidence.modifier is stale (e.g. written before a table change).
    const stale = new Map<string, CheckRun>(
      [...runs].map(([id, r]) => [
        id,
        'evidence' in r && r.evidence ? { ...r, evidence: { ...r.evidence, modifier: 0 } } : r,
      ]),
    );
    assert.equal(scoreModel(MODEL, stale).dimensions[0]?.score, 30);
    assert.equal(modifierScore(stale.values()).evidence.observatory.score, 30);
  });

  it('claims no Observatory score when no security check applied', () => {
    const dim = scoreModel(MODEL, runChecks(securityChecks, {})).dimensions[0];
    assert.equal(dim?.score, null);
    assert.equal(dim?.evidence, undefined);
  });
});

describe('SECURITY_DIMENSION', () => {
  it('includes every security check once with weight 1, scored by modifiers', () => {
    assert.equal(SECURITY_DIMENSION.id, 'security');
    assert.equal(SECURITY_DIMENSION.name, 'Security');
    assert.equal(SECURITY_DIMENSION.weight, 1);
    assert.equal(SECURITY_DIMENSION.method, 'modifiers');
    assert.deepEqual(
      SECURITY_DIMENSION.checks.map((c) => c.id),
      securityChecks.map((c) => c.meta.id),
    );
    assert.ok(SECURITY_DIMENSION.checks.every((c) => c.weight === 1));
    assert.deepEqual(
      SECURITY_DIMENSION.checks.filter((c) => c.gate),
      [{ id: 'https', weight: 1, gate: { cap: 20 } }],
    );
  });
});
