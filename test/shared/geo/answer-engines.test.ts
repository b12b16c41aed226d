import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../shared/config.ts';
import { askWithRetry, limiterFor } from '../../../shared/geo/answer-engines/ask.ts';
import { EngineError, type ProviderId } from '../../../shared/geo/answer-engines/engine.ts';
import { createEngine } from '../../../shared/geo/answer-engines/index.ts';
import { citesSite, firstCitation, mentionsSite, siteIdentity } from '../../../shared/geo/citations.ts';
import { type FakeEngine, startFakeEngine, type Vendor } from '../../helpers/answer-engine.ts';

// Each provider through its vendor's official SDK, pointed by base URL at the loopback fake
// engine speaking that vendor's wire format: what is cited, what is only a source, token usage,
// retries on 429 (Retry-After honoured), a provider that never answers, and malformed answers.

let fake: FakeEngine;
before(async () => {
  fake = await startFakeEngine();
});
after(async () => {
  await fake.close();
});

const VENDOR: Record<Exclude<ProviderId, 'openai_compatible'>, Vendor> = {
  openai: 'openai',
  anthropic: 'anthropic',
  perplexity: 'perplexity',
  gemini: 'gemini',
};

function engine(id: ProviderId, extra: Record<string, string> = {}) {
  const config = loadConfig({ ...fake.env, SCAN_ALLOW_HOSTS: `127.0.0.1:${fake.port}`, ...extra });
  return createEngine(config, id);
}

const policy = (over: Partial<Parameters<typeof askWithRetry>[2]> = {}) => ({
  maxRetries: 3,
  baseMs: 10,
  timeoutMs: 10_000,
  signal: new AbortController().signal,
  deadline: Date.now() + 60_000,
  ...over,
});

const CITED = ['https://www.example.co.uk/pricing', 'https://blog.rival.com/post'];
const SOURCES = [...CITED, 'https://co.uk/', 'https://other.co.uk/x'];

describe('providers: citations in each wire format', () => {
  for (const id of Object.keys(VENDOR) as (keyof typeof VENDOR)[]) {
    it(`${id}: cited URLs in answer order, search sources apart, usage recorded`, async () => {
      fake.script = () => ({
        kind: 'answer',
        text: 'Example Ltd is a good pick.',
        cite: CITED,
        sources: SOURCES,
      });
      const before = fake.requests.length;
      const a = await askWithRetry(engine(id), 'best widgets in the uk?', policy());
      assert.deepEqual(
        a.citations.map((c) => [c.url, c.position]),
        [
          [CITED[0], 1],
          [CITED[1], 2],
        ],
      );
      assert.deepEqual(a.sources.map((s) => s.url).sort(), [...SOURCES].sort());
      assert.equal(a.usage.inputTokens, 21);
      assert.equal(a.usage.outputTokens, 42);
      assert.match(a.text, /Example Ltd is a good pick/);
      const req = fake.requests.slice(before).find((r) => r.vendor === VENDOR[id])!;
      assert.equal(req.prompt, 'best widgets in the uk?');

      const site = siteIdentity('https://example.co.uk/')!;
      assert.equal(firstCitation(site, a.citations), 1);
      assert.equal(firstCitation(siteIdentity('https://rival.com')!, a.citations), 2);
      // co.uk and other.co.uk are only sources here, and would not be the site anyway.
      assert.equal(firstCitation(siteIdentity('https://other.co.uk')!, a.citations), null);
    });
  }

  it('asks with the web search tool of each vendor, with the configured key', () => {
    const of = (v: Vendor) => fake.requests.find((r) => r.vendor === v)!;
    assert.deepEqual(of('openai').body.tools, [{ type: 'web_search' }]);
    assert.deepEqual(of('openai').body.include, ['web_search_call.action.sources']);
    assert.equal(of('openai').headers.authorization, 'Bearer sk-test-openai');
    assert.deepEqual((of('anthropic').body.tools as { type: string }[])[0]!.type, 'web_search_20250305');
    const ant = of('anthropic').headers;
    assert.ok(
      ant['x-api-key'] === 'sk-ant-test' || ant.authorization === 'Bearer sk-ant-test',
      JSON.stringify(ant),
    );
    assert.equal(of('perplexity').body.model, 'sonar');
    assert.equal(of('perplexity').headers.authorization, 'Bearer pplx-test');
    assert.deepEqual(of('gemini').body.tools, [{ googleSearch: {} }]);
    assert.equal(of('gemini').headers['x-goog-api-key'], 'gemini-test');
  });

  it('gemini: grounding redirects are resolved through the safe fetcher before matching', async () => {
    fake.script = () => ({ kind: 'answer', text: 'See example.', cite: ['https://shop.example.co.uk/a'] });
    const before = fake.redirects.length;
    const a = await askWithRetry(engine('gemini'), 'q?', policy());
    assert.equal(fake.redirects.length, before + 1);
    assert.equal(a.citations[0]!.url, 'https://shop.example.co.uk/a');
  });

  it('gemini: a redirect the address policy refuses falls back to the chunk title (the domain)', async () => {
    fake.script = () => ({ kind: 'answer', text: 'See example.', cite: ['https://shop.example.co.uk/a'] });
    const before = fake.redirects.length;
    const a = await askWithRetry(engine('gemini', { SCAN_ALLOW_HOSTS: '' }), 'q?', policy());
    assert.equal(fake.redirects.length, before, 'a refused redirect is never fetched');
    assert.equal(a.citations[0]!.url, 'https://shop.example.co.uk/');
  });

  it('openai_compatible: answers without citations (mentions only)', async () => {
    fake.script = () => ({ kind: 'answer', text: 'Try example.co.uk for widgets.', cite: [] });
    const e = engine('openai_compatible');
    assert.equal(e.cites, false);
    const a = await askWithRetry(e, 'widgets?', policy());
    assert.deepEqual(a.citations, []);
    assert.ok(mentionsSite(siteIdentity('https://www.example.co.uk')!, null, a.text));
  });
});

describe('providers: failures', () => {
  for (const id of Object.keys(VENDOR) as (keyof typeof VENDOR)[]) {
    it(`${id}: a 429 with Retry-After, then 200, succeeds after one wait`, async () => {
      const v = VENDOR[id];
      let calls = 0;
      fake.script = (vendor) => {
        if (vendor !== v) return { kind: 'status', status: 500 };
        calls++;
        return calls === 1
          ? { kind: 'status', status: 429, retryAfter: '1' }
          : { kind: 'answer', text: 'ok', cite: ['https://example.com/'] };
      };
      const waits: number[] = [];
      const a = await askWithRetry(engine(id), 'q?', policy({ onRetry: (_e, ms) => waits.push(ms) }));
      assert.equal(calls, 2);
      assert.deepEqual(waits, [1000], 'waited what Retry-After asked');
      assert.equal(a.citations[0]!.url, 'https://example.com/');
    });
  }

  it('a 503 is retried with backoff; a 400 is not', async () => {
    let calls = 0;
    fake.script = () =>
      ++calls < 3 ? { kind: 'status', status: 503 } : { kind: 'answer', text: 'ok', cite: [] };
    await askWithRetry(engine('openai'), 'q?', policy());
    assert.equal(calls, 3);
    calls = 0;
    fake.script = () => {
      calls++;
      return { kind: 'status', status: 400 };
    };
    await assert.rejects(
      askWithRetry(engine('openai'), 'q?', policy()),
      (e: EngineError) => e.code === 'provider_error',
    );
    assert.equal(calls, 1);
  });

  it('gives up after GEO_MAX_RETRIES with provider_rate_limited', async () => {
    let calls = 0;
    fake.script = () => {
      calls++;
      return { kind: 'status', status: 429, retryAfter: '0' };
    };
    await assert.rejects(
      askWithRetry(engine('anthropic'), 'q?', policy({ maxRetries: 2 })),
      (e: EngineError) => e instanceof EngineError && e.code === 'provider_rate_limited',
    );
    assert.equal(calls, 3);
  });

  it('does not start a Retry-After wait that would pass the run deadline', async () => {
    let calls = 0;
    fake.script = () => {
      calls++;
      return { kind: 'status', status: 429, retryAfter: '3600' };
    };
    await assert.rejects(
      askWithRetry(engine('perplexity'), 'q?', policy()),
      (e: EngineError) => e.code === 'provider_rate_limited' && e.retryAfterSeconds === 3600,
    );
    assert.equal(calls, 1);
  });

  for (const id of ['openai', 'anthropic', 'perplexity', 'gemini'] as const) {
    it(`${id}: a provider that never answers fails with provider_timeout`, async () => {
      fake.script = () => ({ kind: 'hang' });
      await assert.rejects(
        askWithRetry(engine(id), 'q?', policy({ timeoutMs: 300, maxRetries: 0 })),
        (e: EngineError) => e instanceof EngineError && e.code === 'provider_timeout',
      );
    });
  }

  for (const id of ['openai', 'anthropic', 'perplexity', 'gemini', 'openai_compatible'] as const) {
    it(`${id}: a malformed answer is a clear provider_malformed failure`, async () => {
      fake.script = () => ({ kind: 'raw', body: JSON.stringify({ hello: 'world' }) });
      await assert.rejects(
        askWithRetry(engine(id), 'q?', policy()),
        (e: EngineError) => e instanceof EngineError && e.code === 'provider_malformed' && e.provider === id,
      );
    });
  }

  it('a body that is not JSON is provider_malformed too', async () => {
    fake.script = () => ({ kind: 'raw', body: '<html>gateway</html>', contentType: 'application/json' });
    await assert.rejects(
      askWithRetry(engine('openai'), 'q?', policy()),
      (e: EngineError) => e.code === 'provider_malformed',
    );
  });
});

describe('providers: concurrency cap', () => {
  it('never has more calls of one provider in flight than GEO_PROVIDER_CONCURRENCY', async () => {
    fake.script = () => ({ kind: 'answer', text: 'ok', cite: [], delayMs: 50 });
    fake.maxInFlight.clear();
    const limit = limiterFor('openai', 2);
    const e = engine('openai');
    await Promise.all(Array.from({ length: 8 }, () => limit(() => askWithRetry(e, 'q?', policy()))));
    assert.equal(fake.maxInFlight.get('openai'), 2);
  });
});

describe('the citation rule (registrable domain, not substring)', () => {
  const site = siteIdentity('https://example.co.uk/')!;
  for (const [url, expected] of [
    ['https://example.co.uk/', true],
    ['https://www.example.co.uk/page', true],
    ['https://shop.eu.example.co.uk/', true],
    ['http://EXAMPLE.co.uk./x', true],
    ['https://co.uk/', false],
    ['https://other.co.uk/', false],
    ['https://example.co.uk.evil.com/', false],
    ['https://notexample.co.uk/', false],
    ['https://example.com/', false],
  ] as const) {
    it(`${url} ${expected ? 'cites' : 'does not cite'} example.co.uk`, () => {
      assert.equal(citesSite(site, url), expected);
    });
  }
  it('matches an IP address or a host without a public suffix by exact host (port included)', () => {
    const ip = siteIdentity('http://127.0.0.1:8080/')!;
    assert.equal(citesSite(ip, 'http://127.0.0.1:8080/page'), true);
    assert.equal(citesSite(ip, 'http://127.0.0.1:9090/'), false);
    const local = siteIdentity('http://intranet/')!;
    assert.equal(citesSite(local, 'http://intranet/a'), true);
    assert.equal(citesSite(local, 'http://www.intranet/'), false);
  });
  it('treats private suffixes as suffixes: alice.github.io is not bob.github.io', () => {
    assert.equal(citesSite(siteIdentity('https://alice.github.io')!, 'https://bob.github.io/'), false);
    assert.equal(citesSite(siteIdentity('https://alice.github.io')!, 'https://alice.github.io/x'), true);
  });
  it('mentions are whole words of the domain or label', () => {
    assert.equal(mentionsSite(site, 'Example Widgets', 'Try Example Widgets today'), true);
    assert.equal(mentionsSite(site, null, 'see example.co.uk.'), true);
    assert.equal(mentionsSite(site, null, 'see myexample.co.uk'), false);
  });
});
