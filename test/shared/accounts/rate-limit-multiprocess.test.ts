import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createAccount } from '../../../shared/accounts/accounts.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { type Proc, startApiProcess } from '../../helpers/processes.ts';

// Two real API processes share one key's rolling-hour budget through Postgres.
let db: TestDatabase;
let handle: Db;
let apis: (Proc & { url: string })[] = [];

before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url);
  apis = await Promise.all([startApiProcess(db.url), startApiProcess(db.url)]);
});
after(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  await handle.close();
  await db.drop();
});

it('50 concurrent requests for a key limited to 10 over two processes: exactly 10 succeed', async () => {
  const { key } = await createAccount(handle.db, {
    email: 'rl@x.test',
    variant: 'A',
    tier: 'agent',
    rateLimit: 10,
  });
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      fetch(`${apis[i % 2]!.url}/api/v1/account`, { headers: { authorization: `Bearer ${key.key}` } }).then(
        async (r) => ({
          status: r.status,
          headers: r.headers,
          body: (await r.json()) as { code?: string },
        }),
      ),
    ),
  );
  const spec = await SpecChecker.load(apis[0]!.url);
  for (const r of results) spec.check('GET', '/api/v1/account', r);
  const ok = results.filter((r) => r.status === 200);
  const limited = results.filter((r) => r.status === 429);
  assert.equal(ok.length, 10);
  assert.equal(limited.length, 40);
  const now = Math.floor(Date.now() / 1000);
  for (const r of results) {
    assert.equal(r.headers.get('x-ratelimit-limit'), '10');
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    assert.ok(reset > now + 3500 && reset <= now + 3601, `reset ${reset} is about an hour ahead`);
  }
  const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
  assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  for (const r of limited) {
    assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    assert.ok(Number(r.headers.get('retry-after')) > 3500);
    assert.equal(r.body.code, 'rate_limited');
  }
  const { count } = await handle.db
    .selectFrom('rate_limit_seconds')
    .select((eb) => eb.fn.sum<string>('hits').as('count'))
    .where('bucket', 'like', 'key:%')
    .executeTakeFirstOrThrow();
  assert.equal(Number(count), 10, 'only allowed calls are recorded');
});
