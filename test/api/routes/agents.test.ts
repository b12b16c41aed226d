import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AGENTS } from '../../../shared/agent-catalogue/catalogue.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// GET /api/v1/agents: the catalogue in use, for any B key, with version, sources and each
// agent's verification method and provenance.

let t: TestApi;
let spec: SpecChecker;

before(async () => {
  t = await startTestApi();
  spec = await SpecChecker.load(t.url);
});
after(() => t.close());

describe('GET /api/v1/agents', () => {
  it('returns the catalogue with version, sources and verification methods', async () => {
    const key = await t.newKey('B', 'intelligence');
    const res = await call(t.url, '/api/v1/agents', { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/agents', res);
    const body = res.body;
    assert.match(body.version, /^\d{4}-\d{2}-\d{2}\.\d+\+\d+$/);
    assert.match(body.snapshot, /^\d{4}-\d{2}-\d{2}\.\d+$/);
    assert.equal(body.sources[0].name, 'sightline');
    assert.equal(body.sources[0].agents, AGENTS.length);
    assert.ok(body.agents.length > AGENTS.length, 'the public lists add agents');
    // Each verification source with its age (the status page gives only counts).
    const gptbot = body.freshness.verificationSources.find(
      (s: { source: string }) => s.source === 'openai-gptbot',
    );
    assert.equal(gptbot.origin, 'shipped');
    assert.equal(body.freshness.staleAfterDays, 30);
    type A = {
      token: string;
      verification: { ipRanges: string | null; rdnsSuffixes: string[] };
      sources: string[];
    };
    const by = (token: string) => body.agents.find((a: A) => a.token === token) as A;
    assert.equal(by('GPTBot').verification.ipRanges, 'openai-gptbot');
    assert.ok(by('GPTBot').sources.includes('ai.robots.txt'));
    assert.deepEqual(by('YandexBot').verification.rdnsSuffixes, ['.yandex.ru', '.yandex.net', '.yandex.com']);
    assert.equal(
      body.agents.find((a: { token: string; purpose: string }) => a.token === 'Baiduspider').purpose,
      'search-engine',
    );
    assert.ok(
      body.agents.some((a: A) => !a.sources.includes('sightline')),
      'entries from lists only',
    );
  });

  it('refuses a request without a key and a key of the other product', async () => {
    assert.equal((await call(t.url, '/api/v1/agents')).status, 401);
    const a = await t.newKey('A', 'agent');
    assert.equal((await call(t.url, '/api/v1/agents', { key: a })).status, 403);
  });
});
