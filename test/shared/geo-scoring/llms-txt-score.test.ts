import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scoreLlmsTxt } from '../../../shared/geo-scoring/llms-txt-score.ts';
import { LLMS_TXT_CHECKS, llmsTxtQualityModel } from '../../../shared/geo-scoring/models/llms-txt-quality.ts';
import type { LlmsTxtArtifact } from '../../../shared/scan-engine/artifacts.ts';
import { checksById } from '../../../shared/scan-engine/checks/index.ts';
import { runCheck } from '../../../shared/scan-engine/engine.ts';
import { parseLlmsTxt } from '../../../shared/scan-engine/parsers/llms-txt.ts';

function artifact(body: string | null, opts: { status?: number; full?: boolean } = {}): LlmsTxtArtifact {
  const status = opts.status ?? (body === null ? 404 : 200);
  const served = body !== null && status === 200;
  return {
    url: 'https://example.com/llms.txt',
    status,
    contentType: served ? 'text/plain' : null,
    body: body ?? '',
    parsed: served ? parseLlmsTxt(body) : null,
    fullUrl: opts.full ? 'https://example.com/llms-full.txt' : null,
  };
}

const EXCELLENT = `# Acme Docs

> Acme is a hosted queue for background jobs; these docs cover setup, the HTTP API and pricing.

## Guides

- [Quick start](https://acme.dev/start.md): install the client and run a first job
- [Retries](https://acme.dev/retries.md): backoff, dead letters and idempotency
- [Scheduling](https://acme.dev/cron.md): cron syntax and time zones

## API

- [REST reference](https://acme.dev/api.md): every endpoint with examples
- [Webhooks](https://acme.dev/webhooks.md): events and signatures

## Optional

- [Changelog](https://acme.dev/changelog.md): release notes
`;

const BARE = `# Acme

## Links

- [Home](/)
`;

const MALFORMED = `Welcome to our site!

# Acme
# Another title

## Docs
- [Broken link](
`;

describe('llms.txt quality checks', () => {
  const cases: { check: string; name: string; a: LlmsTxtArtifact; outcome: string; message?: RegExp }[] = [
    { check: 'llms-txt-present', name: 'served file', a: artifact(EXCELLENT), outcome: 'pass' },
    { check: 'llms-txt-present', name: '404', a: artifact(null), outcome: 'fail', message: /answers 404/ },
    {
      check: 'llms-txt-present',
      name: 'HTML soft 404',
      a: artifact('<!doctype html><html><body>Not found</body></html>'),
      outcome: 'fail',
      message: /HTML page/,
    },
    { check: 'llms-txt-present', name: 'empty file', a: artifact('  \n'), outcome: 'fail', message: /empty/ },
    { check: 'llms-txt-structure', name: 'well-formed', a: artifact(EXCELLENT), outcome: 'pass' },
    {
      check: 'llms-txt-structure',
      name: 'text before the title and two H1s',
      a: artifact(MALFORMED),
      outcome: 'fail',
    },
    { check: 'llms-txt-structure', name: 'absent', a: artifact(null), outcome: 'not_applicable' },
    { check: 'llms-txt-summary', name: 'blockquote summary', a: artifact(EXCELLENT), outcome: 'pass' },
    { check: 'llms-txt-summary', name: 'no summary', a: artifact(BARE), outcome: 'fail' },
    {
      check: 'llms-txt-summary',
      name: 'a one-word summary',
      a: artifact('# A\n\n> Queue.\n'),
      outcome: 'warn',
    },
    {
      check: 'llms-txt-sections',
      name: 'three sections',
      a: artifact(EXCELLENT),
      outcome: 'pass',
      message: /Optional/,
    },
    { check: 'llms-txt-sections', name: 'one section', a: artifact(BARE), outcome: 'warn' },
    {
      check: 'llms-txt-sections',
      name: 'no sections',
      a: artifact('# A\n\n> A queue for jobs and more.\n'),
      outcome: 'fail',
    },
    {
      check: 'llms-txt-links',
      name: 'six links',
      a: artifact(EXCELLENT),
      outcome: 'pass',
      message: /6 to markdown/,
    },
    { check: 'llms-txt-links', name: 'one link', a: artifact(BARE), outcome: 'fail' },
    {
      check: 'llms-txt-links',
      name: 'unusable URLs',
      a: artifact('# A\n\n## D\n\n- [a](mailto:x@y.z)\n- [b](ftp://h/f)\n- [c](/c)\n- [d](/d)\n- [e](/e)\n'),
      outcome: 'warn',
      message: /2 with unusable URLs/,
    },
    { check: 'llms-txt-link-notes', name: 'every link described', a: artifact(EXCELLENT), outcome: 'pass' },
    { check: 'llms-txt-link-notes', name: 'no descriptions', a: artifact(BARE), outcome: 'fail' },
    {
      check: 'llms-txt-full',
      name: 'llms-full.txt too',
      a: artifact(EXCELLENT, { full: true }),
      outcome: 'pass',
    },
    { check: 'llms-txt-full', name: 'no llms-full.txt', a: artifact(EXCELLENT), outcome: 'warn' },
  ];
  for (const c of cases) {
    it(`${c.check}: ${c.name} -> ${c.outcome}`, () => {
      const check = checksById.get(c.check);
      assert.ok(check);
      const r = runCheck(check, { LlmsTxt: c.a });
      assert.equal(r.outcome, c.outcome, r.message);
      if (c.message) assert.match(r.message, c.message);
    });
  }
});

describe('scoreLlmsTxt', () => {
  it('an excellent file scores A with its parts counted', () => {
    const r = scoreLlmsTxt(artifact(EXCELLENT, { full: true }));
    assert.equal(r.score, 100);
    assert.equal(r.grade, 'A');
    assert.equal(r.present, true);
    assert.equal(r.valid, true);
    assert.equal(r.title, 'Acme Docs');
    assert.match(r.summary ?? '', /^Acme is a hosted queue/);
    assert.equal(r.sectionCount, 3);
    assert.equal(r.linkCount, 6);
    assert.deepEqual(r.issues, []);
    assert.equal(r.passes.length, LLMS_TXT_CHECKS.length);
  });

  it('ranks excellent > bare > malformed > missing', () => {
    const excellent = scoreLlmsTxt(artifact(EXCELLENT)).score;
    const bare = scoreLlmsTxt(artifact(BARE)).score;
    const malformed = scoreLlmsTxt(artifact(MALFORMED)).score;
    const missing = scoreLlmsTxt(artifact(null));
    assert.ok(
      excellent > bare && bare > malformed && malformed > missing.score,
      `${excellent} ${bare} ${malformed}`,
    );
    assert.ok(malformed <= 40, 'a malformed file is capped at 40');
    assert.equal(missing.score, 0);
    assert.equal(missing.present, false);
    assert.equal(missing.grade, 'F');
    assert.deepEqual(missing.issues, ['No /llms.txt (answers 404)']);
    assert.equal(missing.linkCount, 0);
  });

  it('model: weights sum to 1 and every check is registered', () => {
    const weights = llmsTxtQualityModel.dimensions.flatMap((d) => d.checks.map((c) => c.weight));
    assert.ok(Math.abs(weights.reduce((a, b) => a + b, 0) - 1) < 1e-9);
    for (const c of LLMS_TXT_CHECKS) assert.ok(checksById.has(c.id), c.id);
  });
});
