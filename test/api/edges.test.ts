import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { call, startTestApi, type TestApi } from '../helpers/api.ts';

// What no route admits still answers like the rest of the API: rate-limit headers on every
// response, and metrics that label it `unmatched` instead of minting a series per raw path.

let t: TestApi;
before(async () => {
  t = await startTestApi({ BODY_LIMIT: '1kb' });
});
after(() => t.close());

const rateHeaders = (h: Headers, what: string) => {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    assert.match(h.get(name) ?? '', /^\d+$/, `${what}: ${name} present and numeric`);
  }
};

const durationSeries = async () => {
  const text = (await call(t.url, '/metrics')).text;
  return text.split('\n').filter((l) => l.startsWith('sightline_http_request_duration_seconds_count{'));
};

describe('answers no route admitted', () => {
  it('404, 405, 413 and /openapi.json carry X-RateLimit-* like every other response', async () => {
    const notFound = await call(t.url, '/api/v1/no-such-thing');
    assert.equal(notFound.status, 404);
    assert.equal(notFound.body.code, 'not_found');
    rateHeaders(notFound.headers, '404');

    const wrongMethod = await call(t.url, '/api/v1/status', { method: 'DELETE' });
    assert.equal(wrongMethod.status, 405);
    rateHeaders(wrongMethod.headers, '405');

    const tooLarge = await call(t.url, '/api/public/scan', {
      method: 'POST',
      body: { url: `http://x.test/${'a'.repeat(4000)}` },
    });
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.body.code, 'payload_too_large');
    rateHeaders(tooLarge.headers, '413');

    const openapi = await call(t.url, '/openapi.json');
    assert.equal(openapi.status, 200);
    rateHeaders(openapi.headers, '/openapi.json');
  });

  it('a key sent to an unknown path shows that key’s bucket, uncounted', async () => {
    const key = await t.newKey('A', 'free');
    const first = await call(t.url, '/api/v1/nowhere', { key });
    const second = await call(t.url, '/api/v1/nowhere', { key });
    assert.equal(first.headers.get('x-ratelimit-limit'), '20');
    assert.equal(first.headers.get('x-ratelimit-remaining'), '20');
    assert.equal(second.headers.get('x-ratelimit-remaining'), '20');
  });

  it('10,000 requests to random unknown paths add no /metrics series', async () => {
    const methods = ['GET', 'POST', 'PUT', 'DELETE'];
    // One request per method makes the `unmatched` series (one per method and status, a bounded
    // set); reading /metrics once makes its own.
    for (const method of methods) await call(t.url, `/warm-up/${randomBytes(6).toString('hex')}`, { method });
    await durationSeries();
    const before = await durationSeries();
    assert.ok(
      before.some((l) => l.includes('route="unmatched"')),
      'unknown paths are labelled unmatched',
    );
    let sent = 0;
    const worker = async () => {
      while (sent < 10_000) {
        const n = sent++;
        const path = `/${randomBytes(8).toString('hex')}/status/${randomBytes(12).toString('base64url')}`;
        const res = await fetch(t.url + path, { method: methods[n % methods.length] });
        await res.arrayBuffer();
        assert.equal(res.status, 404);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    const after = await durationSeries();
    assert.deepEqual(
      after.map((l) => l.replace(/\s+\d+$/, '')).sort(),
      before.map((l) => l.replace(/\s+\d+$/, '')).sort(),
      'the same series before and after',
    );
    assert.ok(!after.some((l) => /route="\/[0-9a-f]{16}/.test(l)), 'no raw path became a label');
  });
});
