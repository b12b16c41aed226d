import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { poolOf } from '../../../shared/db/pool.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';

// Informational answers (public routes, the free scan page, unknown paths) count nothing and, for
// a keyless caller or a key the process has just seen, do no database work: their X-RateLimit-*
// headers show the caller's bucket as this process last counted it.

let t: TestApi;
before(async () => {
  t = await startTestApi({ RATE_LIMIT_IP_DEFAULT: '50' });
});
after(() => t.close());

/** Statements the API process sent while `work` ran (the routes called here read nothing of their own). */
async function apiStatements(work: () => Promise<unknown>): Promise<number> {
  const pool = poolOf(t.api.services.db)!;
  let n = 0;
  const count = () => n++;
  pool.on('acquire', count);
  try {
    await work();
  } finally {
    pool.off('acquire', count);
  }
  return n;
}

const remaining = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-remaining'));

describe('informational answers', () => {
  it('for a keyless caller: no statement, the caller’s per-address bucket in the headers', async () => {
    const before = await call(t.url, '/api/v1/products');
    assert.equal(before.headers.get('x-ratelimit-limit'), '50');
    assert.equal(remaining(before), 50);
    // A failed authentication is counted per address; informational answers show it after.
    const refused = await call(t.url, '/api/v1/account', { key: 'sl_live_not-a-key' });
    assert.equal(refused.status, 401);
    assert.equal(remaining(refused), 49);
    const answers: Awaited<ReturnType<typeof call>>[] = [];
    const statements = await apiStatements(async () => {
      for (let i = 0; i < 10; i++) {
        answers.push(await call(t.url, '/openapi.json'));
        answers.push(await call(t.url, '/', { headers: { accept: 'text/html' } }));
        answers.push(await call(t.url, '/api/v1/nowhere'));
      }
    });
    assert.equal(statements, 0);
    for (const a of answers) assert.equal(remaining(a), 49, `${a.status}: the count, not counted again`);
  });

  it('for a key this process admitted: no statement, the key’s bucket after its last call', async () => {
    const key = await t.newKey('A', 'pro');
    for (let i = 0; i < 3; i++) assert.equal((await call(t.url, '/api/v1/account', { key })).status, 200);
    const answers: Awaited<ReturnType<typeof call>>[] = [];
    const statements = await apiStatements(async () => {
      for (let i = 0; i < 10; i++) {
        answers.push(await call(t.url, '/openapi.json', { key }));
        answers.push(await call(t.url, '/api/v1/nowhere', { key }));
      }
    });
    assert.equal(statements, 0);
    for (const a of answers) {
      assert.equal(a.headers.get('x-ratelimit-limit'), '100');
      assert.equal(remaining(a), 97);
    }
  });
});
