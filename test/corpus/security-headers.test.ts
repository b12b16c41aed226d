import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  EXTENSION_TESTS,
  MINIMUM_SCORE_FOR_EXTRA_CREDIT,
  OBSERVATORY_TESTS,
  observatoryGrade,
  resultSpec,
} from '../../shared/scan-engine/security/score-table.ts';
import { makePage, resultOf, runSecurity, withHeaders } from '../helpers/security-fixtures.ts';

// Mozilla HTTP Observatory's own test vectors (response headers -> expected result) and the
// HTML bodies its SRI and meta-tag tests use. The vectors assume https://mozilla.org/.
const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const DIR = path.join(CORPUS, 'security-headers/mdn-http-observatory');
const VECTORS = path.join(DIR, 'header-vectors.extracted.json');

interface Vector {
  suite: string;
  test: string;
  source: string;
  headers: Record<string, string>;
  expected: string;
  pass?: boolean | null;
}

const TABLE = path.join(DIR, 'score_table.extracted.json');

describe('security headers: Observatory score table', {
  skip: !existsSync(TABLE) && `corpus not found at ${TABLE}`,
}, () => {
  const table = existsSync(TABLE)
    ? (JSON.parse(readFileSync(TABLE, 'utf8')) as {
        minimum_score_for_extra_credit: number;
        grade_chart: Record<string, string>;
        score_table: { expectation: string; modifier: number }[];
      })
    : null;

  it('has every Observatory result with the same modifier, and no others', () => {
    assert.ok(table);
    const theirs = Object.fromEntries(
      // html-not-parseable is left out: our HTML parser never fails, so no check can report it.
      table.score_table
        .filter((r) => r.expectation !== 'html-not-parseable')
        .map((r) => [r.expectation, r.modifier]),
    );
    const ours = Object.fromEntries(
      Object.values(OBSERVATORY_TESTS).flatMap((results) =>
        Object.entries(results).map(([id, r]) => [id, r.modifier]),
      ),
    );
    assert.deepEqual(ours, theirs);
    for (const id of Object.values(EXTENSION_TESTS).flatMap((r) => Object.keys(r)))
      assert.ok(!(id in theirs), id);
  });

  it('grades by the same chart and extra-credit rule', () => {
    assert.ok(table);
    assert.equal(MINIMUM_SCORE_FOR_EXTRA_CREDIT, table.minimum_score_for_extra_credit);
    for (const [score, grade] of Object.entries(table.grade_chart)) {
      for (const s of [Number(score), Number(score) + 4])
        assert.equal(observatoryGrade(s), grade, `score ${s}`);
    }
  });
});

const CHECK_FOR_SUITE: Record<string, string> = { csp: 'content-security-policy' };

describe('security headers: Observatory vectors', {
  skip: !existsSync(VECTORS) && `corpus not found at ${VECTORS}`,
}, () => {
  it('maps at least 95% of the vectors to the expected result', (t) => {
    const { vectors } = JSON.parse(readFileSync(VECTORS, 'utf8')) as { vectors: Vector[] };
    assert.ok(vectors.length >= 100, `only ${vectors.length} vectors`);
    const misses: string[] = [];
    let passAgree = 0;
    let passKnown = 0;
    for (const v of vectors) {
      const id = CHECK_FOR_SUITE[v.suite] ?? v.suite;
      const got = resultOf(runSecurity(id, withHeaders(v.headers)));
      if (got !== v.expected) {
        misses.push(`${v.source} ${v.test}: ${JSON.stringify(v.headers)} -> ${got}, expected ${v.expected}`);
      }
      if (typeof v.pass === 'boolean' && got) {
        passKnown++;
        if (resultSpec(got).pass === v.pass) passAgree++;
        else t.diagnostic(`  pass flag differs: ${v.source} ${v.test} -> ${got}`);
      }
    }
    const ratio = (vectors.length - misses.length) / vectors.length;
    t.diagnostic(
      `${vectors.length - misses.length} of ${vectors.length} vectors match (${(ratio * 100).toFixed(1)}%)`,
    );
    t.diagnostic(`Observatory pass flag agrees on ${passAgree} of ${passKnown} vectors that state one`);
    for (const m of misses) t.diagnostic(`  miss: ${m}`);
    assert.ok(ratio >= 0.95, `only ${(ratio * 100).toFixed(1)}% match:\n${misses.join('\n')}`);
  });
});

// Expectations from the Observatory test suite for its HTML fixtures (test/subresource-integrity,
// csp, referrer-policy and x-frame-options tests at the same commit).
const FILE_CASES: { file: string; check: string; headers?: Record<string, string>; expected: string }[] = [
  {
    file: 'test_content_sri_no_scripts.html',
    check: 'subresource-integrity',
    expected: 'sri-not-implemented-but-no-scripts-loaded',
  },
  {
    file: 'test_content_sri_sameorigin1.html',
    check: 'subresource-integrity',
    expected: 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin',
  },
  {
    file: 'test_content_sri_sameorigin2.html',
    check: 'subresource-integrity',
    expected: 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin',
  },
  {
    file: 'test_content_sri_sameorigin3.html',
    check: 'subresource-integrity',
    expected: 'sri-not-implemented-and-external-scripts-not-loaded-securely',
  },
  {
    file: 'test_content_sri_impl_sameorigin.html',
    check: 'subresource-integrity',
    expected: 'sri-implemented-and-all-scripts-loaded-securely',
  },
  {
    file: 'test_content_sri_impl_external_https1.html',
    check: 'subresource-integrity',
    expected: 'sri-implemented-and-external-scripts-loaded-securely',
  },
  {
    file: 'test_content_sri_impl_external_https2.html',
    check: 'subresource-integrity',
    expected: 'sri-implemented-and-external-scripts-loaded-securely',
  },
  {
    file: 'test_content_sri_notimpl_external_https.html',
    check: 'subresource-integrity',
    expected: 'sri-not-implemented-but-external-scripts-loaded-securely',
  },
  {
    file: 'test_content_sri_impl_external_http.html',
    check: 'subresource-integrity',
    expected: 'sri-implemented-but-external-scripts-not-loaded-securely',
  },
  {
    file: 'test_content_sri_impl_external_noproto.html',
    check: 'subresource-integrity',
    expected: 'sri-implemented-but-external-scripts-not-loaded-securely',
  },
  {
    file: 'test_content_sri_notimpl_external_http.html',
    check: 'subresource-integrity',
    expected: 'sri-not-implemented-and-external-scripts-not-loaded-securely',
  },
  {
    file: 'test_content_sri_notimpl_external_noproto.html',
    check: 'subresource-integrity',
    expected: 'sri-not-implemented-and-external-scripts-not-loaded-securely',
  },
  {
    file: 'test_content_sri_notimpl_external_http.html',
    check: 'subresource-integrity',
    headers: { 'content-type': 'application/json' },
    expected: 'sri-not-implemented-response-not-html',
  },
  {
    file: 'test_parse_http_equiv_headers_csp1.html',
    check: 'content-security-policy',
    expected: 'csp-implemented-with-no-unsafe-default-src-none',
  },
  {
    file: 'test_parse_http_equiv_headers_csp1.html',
    check: 'content-security-policy',
    headers: { 'content-security-policy': "default-src 'none'" },
    expected: 'csp-implemented-with-no-unsafe-default-src-none',
  },
  {
    file: 'test_parse_http_equiv_headers_csp1.html',
    check: 'content-security-policy',
    headers: { 'content-security-policy': "img-src 'none'" },
    expected: 'csp-implemented-with-no-unsafe-default-src-none',
  },
  {
    file: 'test_parse_http_equiv_headers_csp2.html',
    check: 'content-security-policy',
    headers: { 'content-security-policy': 'default-src http:' },
    expected: 'csp-implemented-with-no-unsafe-default-src-none',
  },
  {
    file: 'test_parse_http_equiv_headers_csp2.html',
    check: 'content-security-policy',
    headers: { 'content-security-policy': "default-src 'none'" },
    expected: 'csp-implemented-with-no-unsafe-default-src-none',
  },
  {
    file: 'test_parse_http_equiv_headers_csp_multiple_http_equiv1.html',
    check: 'content-security-policy',
    expected: 'csp-implemented-with-no-unsafe-default-src-none',
  },
  {
    file: 'test_parse_http_equiv_headers_not_allowed.html',
    check: 'content-security-policy',
    expected: 'csp-not-implemented',
  },
  {
    file: 'test_parse_http_equiv_headers_not_allowed.html',
    check: 'content-security-policy',
    headers: { 'content-security-policy': "frame-anchestors 'none'" },
    expected: 'csp-implemented-with-unsafe-inline',
  },
  {
    file: 'test_parse_http_equiv_headers_referrer1.html',
    check: 'referrer-policy',
    expected: 'referrer-policy-private',
  },
  {
    file: 'test_parse_http_equiv_headers_referrer1.html',
    check: 'referrer-policy',
    headers: { 'referrer-policy': 'unsafe-url' },
    expected: 'referrer-policy-private',
  },
  {
    file: 'test_parse_http_equiv_headers_case_insensitivity.html',
    check: 'referrer-policy',
    expected: 'referrer-policy-private',
  },
  {
    file: 'test_parse_http_equiv_headers_x_frame_options.html',
    check: 'x-frame-options',
    expected: 'x-frame-options-not-implemented',
  },
];

describe('security headers: Observatory HTML fixtures', {
  skip: !existsSync(DIR) && `corpus not found at ${DIR}`,
}, () => {
  for (const c of FILE_CASES) {
    it(`${c.file}${c.headers ? ` + ${JSON.stringify(c.headers)}` : ''} -> ${c.expected}`, () => {
      const html = readFileSync(path.join(DIR, 'files', c.file), 'utf8');
      const page = c.headers
        ? withHeaders(c.headers, { html, contentType: c.headers['content-type'] ?? null })
        : makePage({ html });
      assert.equal(resultOf(runSecurity(c.check, page)), c.expected);
    });
  }
});
