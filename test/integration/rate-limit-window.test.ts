import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { peekToken, pruneHits, takeToken } from '../../shared/accounts/rate-limit.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { call, startTestApi, type TestApi } from '../helpers/api.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// The rolling hour (rate_limit_take in sql/001): hits older than an hour stop counting, the
// hourly prune drops only those, and per-IP buckets follow X-Forwarded-For only with TRUST_PROXY.

let db: TestDatabase;
let handle: Db;

before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url);
});
after(async () => {
  await handle.close();
  await db.drop();
});

/** Moves a bucket's hits back in time, as if they had been made `age` ago. */
const age = (bucket: string, by: string) =>
  sql`update rate_limit_hits set hit_at = hit_at - ${by}::interval where bucket = ${bucket}`.execute(
    handle.db,
  );

const hits = async (bucket: string) =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from rate_limit_hits where bucket = ${bucket}`.execute(
        handle.db,
      )
    ).rows[0]!.n,
  );

describe('rolling-hour window', () => {
  it('stops counting hits once they are more than an hour old', async () => {
    const bucket = 'test:window-expiry';
    assert.equal((await takeToken(handle.db, bucket, 2)).remaining, 1);
    assert.equal((await takeToken(handle.db, bucket, 2)).remaining, 0);
    const refused = await takeToken(handle.db, bucket, 2);
    assert.equal(refused.allowed, false);
    assert.equal(await hits(bucket), 2, 'a refused call is not recorded');

    // 59 minutes on: both hits still count.
    await age(bucket, '59 minutes');
    assert.equal((await takeToken(handle.db, bucket, 2)).allowed, false);
    assert.equal((await peekToken(handle.db, bucket, 2)).remaining, 0);

    // Two more minutes: they have left the window, the bucket is full again.
    await age(bucket, '2 minutes');
    assert.equal((await peekToken(handle.db, bucket, 2)).remaining, 2);
    const again = await takeToken(handle.db, bucket, 2);
    assert.equal(again.allowed, true);
    assert.equal(again.remaining, 1);
    const now = Math.floor(Date.now() / 1000);
    assert.ok(again.reset > now + 3500 && again.reset <= now + 3601, 'reset counts from the new hit');
  });

  it('counts a mix: only the hits inside the hour, and resets when the oldest of those leaves', async () => {
    const bucket = 'test:window-mix';
    await takeToken(handle.db, bucket, 3);
    await age(bucket, '70 minutes'); // outside
    await takeToken(handle.db, bucket, 3);
    await age(bucket, '30 minutes'); // the first is now 100 minutes old, the second 30
    const s = await takeToken(handle.db, bucket, 3);
    assert.equal(s.allowed, true);
    assert.equal(s.remaining, 1, 'the 30-minute-old hit and this one count; the 100-minute-old one does not');
    const now = Math.floor(Date.now() / 1000);
    // The oldest counted hit (30 minutes old) leaves the window in about 30 minutes.
    assert.ok(s.reset > now + 1700 && s.reset <= now + 1801, `reset ${s.reset - now}s ahead`);
  });
});

describe('pruneHits', () => {
  it('deletes only hits that left the window (with five minutes of slack)', async () => {
    await sql`delete from rate_limit_hits`.execute(handle.db);
    const buckets = { fresh: '1 minute', edge: '62 minutes', old: '66 minutes', ancient: '3 days' };
    for (const [name, by] of Object.entries(buckets)) {
      await takeToken(handle.db, `test:prune-${name}`, 10);
      await takeToken(handle.db, `test:prune-${name}`, 10);
      await age(`test:prune-${name}`, by);
    }
    assert.equal(await pruneHits(handle.db), 4);
    assert.equal(await hits('test:prune-fresh'), 2);
    assert.equal(await hits('test:prune-edge'), 2);
    assert.equal(await hits('test:prune-old'), 0);
    assert.equal(await hits('test:prune-ancient'), 0);
    assert.equal(await pruneHits(handle.db), 0);
  });
});

// Failed authentication is counted per client address (bucket ip:default:<ip>), with the
// X-RateLimit-* headers on the 401: a clean way to watch per-IP counting over HTTP.
async function unauthenticated(t: TestApi, forwardedFor: string) {
  const res = await call(t.url, '/api/v1/account', { headers: { 'x-forwarded-for': forwardedFor } });
  return { status: res.status, remaining: Number(res.headers.get('x-ratelimit-remaining')) };
}

describe('TRUST_PROXY', () => {
  it('false (the default): X-Forwarded-For is ignored, every claimed address shares the socket address', async () => {
    const t = await startTestApi({ RATE_LIMIT_IP_DEFAULT: '3' });
    try {
      assert.deepEqual(await unauthenticated(t, '203.0.113.1'), { status: 401, remaining: 2 });
      assert.deepEqual(await unauthenticated(t, '203.0.113.2'), { status: 401, remaining: 1 });
      assert.deepEqual(await unauthenticated(t, '203.0.113.3'), { status: 401, remaining: 0 });
      // A client cannot escape its limit by inventing a new address.
      assert.equal((await unauthenticated(t, '198.51.100.7')).status, 429);
      const buckets = await t.handle.db.selectFrom('rate_limit_hits').select('bucket').distinct().execute();
      assert.ok(
        buckets.every((b) => !b.bucket.includes('203.0.113.') && !b.bucket.includes('198.51.100.')),
        JSON.stringify(buckets),
      );
    } finally {
      await t.close();
    }
  });

  it('true: the client address comes from X-Forwarded-For, each with its own per-IP bucket', async () => {
    const t = await startTestApi({ RATE_LIMIT_IP_DEFAULT: '3', TRUST_PROXY: 'true' });
    try {
      assert.deepEqual(await unauthenticated(t, '203.0.113.1'), { status: 401, remaining: 2 });
      assert.deepEqual(await unauthenticated(t, '203.0.113.1'), { status: 401, remaining: 1 });
      assert.deepEqual(await unauthenticated(t, '203.0.113.1'), { status: 401, remaining: 0 });
      assert.equal((await unauthenticated(t, '203.0.113.1')).status, 429);
      // Another client behind the same proxy has its own budget.
      assert.deepEqual(await unauthenticated(t, '203.0.113.2'), { status: 401, remaining: 2 });
      // Koa takes the leftmost address of a chain (the original client, as the proxy appended).
      assert.deepEqual(await unauthenticated(t, '198.51.100.7, 10.0.0.1'), { status: 401, remaining: 2 });
      const buckets = (await t.handle.db.selectFrom('rate_limit_hits').select('bucket').execute()).map(
        (b) => b.bucket,
      );
      assert.equal(buckets.filter((b) => b.endsWith(':203.0.113.1')).length, 3);
      assert.equal(buckets.filter((b) => b.endsWith(':203.0.113.2')).length, 1);
      assert.equal(buckets.filter((b) => b.endsWith(':198.51.100.7')).length, 1);
    } finally {
      await t.close();
    }
  });
});
