import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scoreGeo } from '../../shared/geo-scoring/geo-check.ts';
import { createUrlPolicy } from '../../shared/net/url-policy.ts';
import { isGatherError } from '../../shared/scan-engine/artifacts.ts';
import { runScan } from '../../shared/scans/gather-and-score.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

// Issue 14, IndexNow: a key file at /{key}.txt cannot be found from outside, so an unadvertised
// setup is "cannot be verified" with neutral points, never a failure; a key the owner declares
// (monitored site `indexnow_key`) or advertises is verified by fetching its file over real HTTP.

const KEY = 'f3b9c2a1d4e5f60718293a4b5c6d7e8f';
const PAGE =
  '<!doctype html><html lang="en"><head><title>Shop</title></head><body><main><h1>Shop</h1><p>Hello.</p></main></body></html>';

let site: FixtureServer;
before(async () => {
  const text = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  site = await startFixtureServer({
    routes: {
      '/': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
      [`/${KEY}.txt`]: text(`${KEY}\n`),
      '/keys/indexnow.txt': text(KEY),
      '/stale.txt': text('some-other-key-1234'),
    },
  });
});
after(() => site.close());

async function indexnow(declared?: { key: string; keyLocation?: string | null }) {
  const out = await runScan(new URL(site.url), 'quick', {
    policy: createUrlPolicy(`127.0.0.1:${site.port}`),
    signal: AbortSignal.timeout(30_000),
    indexnow: declared,
  });
  const geo = scoreGeo(out.artifacts, site.url);
  const signal = geo.signals.find((s) => s.id === 'indexnow')!;
  const artifact = out.artifacts.IndexNow;
  assert.ok(artifact && !isGatherError(artifact));
  return { signal, artifact };
}

describe('IndexNow verification', () => {
  it('nothing advertised or declared: "cannot be verified", half the points, not a failure', async () => {
    const { signal, artifact } = await indexnow();
    assert.equal(artifact.key, null);
    assert.equal(signal.status, 'warn');
    assert.equal(signal.score, signal.maxScore / 2);
    assert.match(signal.detail, /cannot be verified/);
  });

  it('a declared key is verified at /{key}.txt', async () => {
    const { signal, artifact } = await indexnow({ key: KEY });
    assert.equal(artifact.matches, true);
    assert.equal(artifact.keyFileUrl, `${site.origin}/${KEY}.txt`);
    assert.equal(signal.status, 'pass');
    assert.equal(signal.score, signal.maxScore);
  });

  it('a declared keyLocation is verified there', async () => {
    const { signal, artifact } = await indexnow({
      key: KEY,
      keyLocation: `${site.origin}/keys/indexnow.txt`,
    });
    assert.equal(artifact.keyFileUrl, `${site.origin}/keys/indexnow.txt`);
    assert.equal(signal.status, 'pass');
  });

  it('a declared key whose file is missing or holds another key fails, saying why', async () => {
    const missing = await indexnow({ key: 'abcdef0123456789' });
    assert.equal(missing.signal.status, 'fail');
    assert.match(missing.signal.detail, /HTTP 404/);
    const stale = await indexnow({ key: KEY, keyLocation: '/stale.txt' });
    assert.equal(stale.signal.status, 'fail');
    assert.match(stale.signal.detail, /not the key/);
  });

  it('a key location on another host is refused without a request', async () => {
    const before = site.hits.length;
    const { signal, artifact } = await indexnow({
      key: KEY,
      keyLocation: 'https://elsewhere.example/key.txt',
    });
    assert.equal(signal.status, 'fail');
    assert.match(artifact.error ?? '', /must be on/);
    assert.ok(!site.hits.slice(before).some((h) => h.url.includes('key.txt')));
  });
});
