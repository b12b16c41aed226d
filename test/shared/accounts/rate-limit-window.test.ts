import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql, type Transaction } from 'kysely';
import { createAccount, revokeKeys } from '../../../shared/accounts/accounts.ts';
import { TIER_LIMITS } from '../../../shared/accounts/auth.ts';
import { hashKey } from '../../../shared/accounts/keys.ts';
import { peekToken, pruneHits, takeToken } from '../../../shared/accounts/rate-limit.ts';
import type { Database } from '../../../shared/db/database.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// The rolling hour (sql/functions/rate-limits.sql: rate_limit_take and admit_keys_counted, calls
// counted per second): hits older than an hour stop counting, the hourly prune drops only those,
// and per-IP buckets follow X-Forwarded-For only with TRUST_PROXY.

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
const age = async (bucket: string, by: string) => {
  await sql`update rate_limit_seconds set second = second - ${by}::interval where bucket = ${bucket}`.execute(
    handle.db,
  );
};

const hits = async (bucket: string) =>
  Number(
    (
      await sql<{
        n: string | null;
      }>`select sum(hits) as n from rate_limit_seconds where bucket = ${bucket}`.execute(handle.db)
    ).rows[0]!.n,
  );

/**
 * Puts 50,000 hits in a bucket's rolling hour as the limiter stores them: 20 calls a second over
 * the last 2,500 seconds (one row per second), with the bucket's running total to match.
 */
async function store50kHits(bucket: string) {
  await sql`insert into rate_limit_seconds (bucket, second, hits)
            select ${bucket}, date_trunc('second', now()) - i * interval '1 second', 20
              from generate_series(1, 2500) i`.execute(handle.db);
  await sql`insert into rate_limit_buckets (bucket, hits) values (${bucket}, 50000)
            on conflict (bucket) do update set hits = rate_limit_buckets.hits + 50000`.execute(handle.db);
  await sql`analyze rate_limit_seconds`.execute(handle.db);
}

/**
 * The batched admission of these key hashes as the API makes it (takeKeyed): each key once with its
 * number of calls, then one answer per call, in the calls' order (`ord`), as a table to select from.
 */
const admitKeys = (hashes: Buffer[]) =>
  sql`(with calls as (select c.h, c.o from unnest(${hashes}::bytea[]) with ordinality as c(h, o)),
        keyed as (select h, count(*)::int as n, array_agg(o::int order by o) as ords,
                         row_number() over (order by min(o)) as k
                    from calls group by h),
        admitted as (select * from admit_keys_counted(
                       (select array_agg(h order by k) from keyed), (select array_agg(n order by k) from keyed),
                       ${JSON.stringify(TIER_LIMITS)}::jsonb, '1 hour'::interval))
      select keyed.ords[i] as ord, a.revoked,
             case when not a.revoked then i <= a.granted end as allowed,
             case when not a.revoked then case when i <= a.granted then a.rate_limit - a.count_before - i else 0 end end
               as remaining,
             case when i = 1 then a.email end as email, case when i = 1 then a.plan end as plan
        from admitted a join keyed on keyed.k = a.ord, generate_subscripts(keyed.ords, 1) as i) as admitted`;

/**
 * Rows `statement` read and wrote in the limiter's tables, per table, from Postgres'
 * per-transaction statistics (read before and after it: the view also holds the session's not yet
 * flushed counts); `seqRead` is the part sequential scans read.
 */
async function limiterRows(
  on: Kysely<Database>,
  statement: (trx: Transaction<Database>) => Promise<unknown>,
): Promise<Record<string, { touched: number; seqRead: number }>> {
  return on.transaction().execute(async (trx) => {
    const counts = async () => {
      const { rows } = await sql<{ relname: string; touched: string; seq_read: string }>`
        select relname, seq_tup_read as seq_read,
               seq_tup_read + coalesce(idx_tup_fetch, 0) + n_tup_ins + n_tup_upd + n_tup_del as touched
          from pg_stat_xact_user_tables
         where relname in ('rate_limit_seconds', 'rate_limit_buckets')`.execute(trx);
      return new Map(
        rows.map((r) => [r.relname, { touched: Number(r.touched), seqRead: Number(r.seq_read) }]),
      );
    };
    const before = await counts();
    await statement(trx);
    const after = await counts();
    return Object.fromEntries(
      [...after].map(([table, a]) => {
        const b = before.get(table) ?? { touched: 0, seqRead: 0 };
        return [table, { touched: a.touched - b.touched, seqRead: a.seqRead - b.seqRead }];
      }),
    );
  });
}

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
    await sql`delete from rate_limit_seconds`.execute(handle.db);
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
      const buckets = await t.handle.db
        .selectFrom('rate_limit_seconds')
        .select('bucket')
        .distinct()
        .execute();
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
      const buckets = (
        await t.handle.db.selectFrom('rate_limit_seconds').select(['bucket', 'hits']).execute()
      ).flatMap((b) => Array<string>(b.hits).fill(b.bucket));
      assert.equal(buckets.filter((b) => b.endsWith(':203.0.113.1')).length, 3);
      assert.equal(buckets.filter((b) => b.endsWith(':203.0.113.2')).length, 1);
      assert.equal(buckets.filter((b) => b.endsWith(':198.51.100.7')).length, 1);
    } finally {
      await t.close();
    }
  });
});

describe('limiter cost', () => {
  /** Rows one take reads and writes, per table. */
  const rowsTouched = (bucket: string, limit: number) =>
    limiterRows(handle.db, (trx) =>
      sql`select * from rate_limit_take(${bucket}, ${limit}::int, '1 hour'::interval)`.execute(trx),
    );

  it('touches the same few rows with 0 or 50,000 hits in the bucket (no count over the hits)', async () => {
    const fresh = await rowsTouched('test:cost-fresh', 100_000);
    const full = 'test:cost-50k';
    await store50kHits(full);
    const loaded = await rowsTouched(full, 100_000);
    // A count over the hits would touch 50,000 rows here; the stored count touches a handful
    // either way (the bucket row, one index entry for the oldest second, the current second).
    for (const table of ['rate_limit_seconds', 'rate_limit_buckets']) {
      const [f, l] = [fresh[table]?.touched ?? 0, loaded[table]?.touched ?? 0];
      assert.ok(f <= 10 && l <= 10, `${table}: ${f} rows touched fresh, ${l} at 50,000 hits`);
    }
    const state = await peekToken(handle.db, full, 100_000);
    assert.equal(state.remaining, 100_000 - 50_001, 'and the count is exact');
  });

  it('a take after an hour of silence deletes the expired hits once and counts from zero', async () => {
    const bucket = 'test:cost-expired';
    for (let i = 0; i < 5; i++) await takeToken(handle.db, bucket, 10);
    await age(bucket, '61 minutes');
    const s = await takeToken(handle.db, bucket, 10);
    assert.equal(s.remaining, 9);
    assert.equal(await hits(bucket), 1, 'the five expired hits were deleted by the take');
  });
});

describe('batched keyed admissions (admit_keys_counted)', () => {
  const admit = async (hashes: Buffer[]) =>
    (
      await sql<{
        ord: number;
        revoked: boolean;
        allowed: boolean | null;
        remaining: number | null;
        email: string | null;
        plan: string | null;
      }>`select ord, revoked, allowed, remaining, email, plan from ${admitKeys(hashes)} order by ord`.execute(
        handle.db,
      )
    ).rows;

  it('grants one key’s calls in arrival order until its limit, and answers each call', async () => {
    const { key } = await createAccount(handle.db, {
      email: 'batch@example.com',
      variant: 'A',
      tier: 'agent',
      plan: 'growth',
      rateLimit: 3,
    });
    const other = await createAccount(handle.db, {
      email: 'other@example.com',
      variant: 'B',
      tier: 'intelligence',
    });
    const h = hashKey(key.key);
    const o = hashKey(other.key.key);
    const unknown = hashKey('sl_live_nobody');
    const rows = await admit([h, o, h, unknown, h, h, h]);
    assert.deepEqual(
      rows.map((r) => [r.ord, r.allowed, r.remaining]),
      [
        [1, true, 2],
        [2, true, TIER_LIMITS.intelligence - 1],
        [3, true, 1],
        [5, true, 0],
        [6, false, 0],
        [7, false, 0],
      ],
      'the unknown key (4) has no row; the fourth and fifth call of a 3-an-hour key are refused',
    );
    assert.equal(rows[0]!.email, 'batch@example.com', 'the account comes with the admission');
    assert.equal(rows[0]!.plan, 'growth');
    assert.equal(await hits(`key:${key.id}`), 3, 'only granted calls leave a hit');
    const next = await admit([h]);
    assert.equal(next[0]!.allowed, false, 'the count carries over to the next batch');

    await revokeKeys(handle.db, other.key.displayPrefix);
    const revoked = await admit([o, o]);
    assert.deepEqual(
      revoked.map((r) => [r.ord, r.revoked, r.allowed]),
      [
        [1, true, null],
        [2, true, null],
      ],
      'a revoked key is answered, not counted',
    );
  });

  it('touches the same few rows per call with 0 or 50,000 hits in the bucket', async () => {
    const { key } = await createAccount(handle.db, {
      email: 'batch-cost@example.com',
      variant: 'A',
      tier: 'agent',
      rateLimit: 1_000_000,
    });
    const bucket = `key:${key.id}`;
    const touched = async () => {
      const rows = await limiterRows(handle.db, (trx) =>
        sql`select * from ${admitKeys([hashKey(key.key)])}`.execute(trx),
      );
      return Object.values(rows).reduce((n, t) => n + t.touched, 0);
    };
    const fresh = await touched();
    await store50kHits(bucket);
    const loaded = await touched();
    assert.ok(fresh <= 10 && loaded <= 10, `${fresh} rows touched fresh, ${loaded} at 50,000 hits`);
  });

  it('takes bucket locks in name order, as the sweep does, so batches and sweeps cannot deadlock', async () => {
    const made = await Promise.all(
      [1, 2].map((i) =>
        createAccount(handle.db, {
          email: `batch-lock-${i}@example.com`,
          variant: 'A',
          tier: 'agent',
          rateLimit: 100_000,
        }),
      ),
    );
    await admit(made.map((m) => hashKey(m.key.key))); // both buckets exist
    const [first, second] = made
      .map((m) => ({ bucket: `key:${m.key.id}`, hash: hashKey(m.key.key) }))
      .sort((a, b) => (a.bucket < b.bucket ? -1 : 1));
    const holder = createDb(db.url, { max: 1 });
    let waiting: Promise<unknown>[] = [];
    try {
      await holder.db.transaction().execute(async (trx) => {
        // Hold the first bucket's lock; a batch naming the second key first must still queue on
        // the first and so leave the second free (a caller-order lock would hold it and wait).
        await sql`select 1 from rate_limit_buckets where bucket = ${first!.bucket} for update`.execute(trx);
        // The sweep walks every bucket the same way: it too must queue before the second one.
        waiting = [admit([second!.hash, first!.hash]), pruneHits(handle.db)];
        await new Promise((r) => setTimeout(r, 300));
        await sql`select 1 from rate_limit_buckets where bucket = ${second!.bucket} for update nowait`.execute(
          trx,
        );
      });
      await Promise.all(waiting); // once the holder commits, both finish
    } finally {
      await holder.close();
    }
  });
});

describe('limiter plans', () => {
  it('stay on the indexes when the hits table grows after a connection first used them', async () => {
    // A new deployment: the connection runs its first admissions while rate_limit_seconds is
    // empty (the plans plpgsql caches then are reused for the connection's life), then the
    // table fills. Sequential scans would read every hit on every later batch.
    const fresh = await createTestDatabase();
    const one = createDb(fresh.url, { max: 1 });
    try {
      const { key } = await createAccount(one.db, {
        email: 'plans@example.com',
        variant: 'A',
        tier: 'agent',
        rateLimit: 1_000_000,
      });
      const hash = hashKey(key.key);
      const batch = () => sql`select * from ${admitKeys([hash, hash])}`.execute(one.db);
      for (let i = 0; i < 12; i++) await batch(); // past plpgsql's switch to a cached generic plan
      await sql`insert into rate_limit_seconds (bucket, second, hits)
                select 'someone-else', date_trunc('second', now()) - i * interval '1 second', 1
                  from generate_series(1, 50000) i`.execute(one.db);
      const rows = await limiterRows(one.db, (trx) => sql`select * from ${admitKeys([hash])}`.execute(trx));
      assert.equal(rows.rate_limit_seconds?.seqRead ?? 0, 0, 'no hit was read by a sequential scan');
    } finally {
      await one.close();
      await fresh.drop();
    }
  });
});

describe('per-second counts', () => {
  /** Seconds since the epoch on the database clock, and the fraction of the current one gone. */
  const dbSecond = async () => {
    const { rows } = await sql<{ t: string }>`select extract(epoch from clock_timestamp()) as t`.execute(
      handle.db,
    );
    const t = Number(rows[0]!.t);
    return { second: Math.floor(t), fraction: t - Math.floor(t) };
  };

  it('counts a second’s calls in one row until that second plus one second plus the hour', async () => {
    const bucket = 'test:seconds-edge';
    // Start early in a second, so the takes below all fall in it.
    for (let now = await dbSecond(); now.fraction > 0.4; now = await dbSecond())
      await new Promise((r) => setTimeout(r, 50));
    const { second } = await dbSecond();
    for (let i = 0; i < 3; i++) await takeToken(handle.db, bucket, 5);
    const rows = await sql<{
      hits: number;
    }>`select hits from rate_limit_seconds where bucket = ${bucket}`.execute(handle.db);
    assert.deepEqual(
      rows.rows.map((r) => r.hits),
      [3],
      'three calls in one second: one row',
    );

    // An hour back: the calls of that second leave at its end plus the hour, a moment from now.
    await age(bucket, '3600 seconds');
    assert.equal((await peekToken(handle.db, bucket, 5)).remaining, 2, 'still counted');
    const taken = await takeToken(handle.db, bucket, 5);
    assert.deepEqual([taken.allowed, taken.remaining], [true, 1]);
    assert.equal(taken.reset, second + 1, 'reset: when the oldest counted second leaves');

    // One second further back, the old second has left the window: only the newer call counts.
    await sql`update rate_limit_seconds set second = second - interval '1 second'
               where bucket = ${bucket} and second < ${new Date((second - 1000) * 1000)}`.execute(handle.db);
    assert.equal((await peekToken(handle.db, bucket, 5)).remaining, 4, 'expired with its second');
    const again = await takeToken(handle.db, bucket, 5);
    assert.deepEqual([again.allowed, again.remaining], [true, 3]);
    assert.equal(await hits(bucket), 2, 'the expired second was deleted by the take');
    const stored = await handle.db
      .selectFrom('rate_limit_buckets')
      .select('hits')
      .where('bucket', '=', bucket)
      .executeTakeFirstOrThrow();
    assert.equal(stored.hits, 2, 'and the running total lost its three calls');
  });

  it('stays exact under concurrent batches over two pools across second boundaries', async () => {
    const limit = 37;
    const { key } = await createAccount(handle.db, {
      email: 'seconds-exact@example.com',
      variant: 'A',
      tier: 'agent',
      rateLimit: limit,
    });
    const h = hashKey(key.key);
    const pools = [createDb(db.url, { max: 5 }), createDb(db.url, { max: 5 })];
    try {
      // 40 batches of 1 to 5 calls (120 calls), started over about 1.5 seconds.
      const answers = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          await new Promise((r) => setTimeout(r, (i * 37) % 1500));
          const { rows } = await sql<{ allowed: boolean; remaining: number }>`
            select allowed, remaining from ${admitKeys(Array<Buffer>((i % 5) + 1).fill(h))}`.execute(
            pools[i % 2]!.db,
          );
          return rows;
        }),
      );
      const all = answers.flat();
      assert.equal(all.length, 120);
      const granted = all.filter((r) => r.allowed);
      assert.equal(granted.length, limit, 'exactly the limit granted');
      assert.deepEqual(
        granted.map((r) => r.remaining).sort((a, b) => a - b),
        Array.from({ length: limit }, (_, i) => i),
        'each remaining count answered once',
      );
      assert.equal(await hits(`key:${key.id}`), limit, 'the seconds hold exactly the granted calls');
      const stored = await handle.db
        .selectFrom('rate_limit_buckets')
        .select('hits')
        .where('bucket', '=', `key:${key.id}`)
        .executeTakeFirstOrThrow();
      assert.equal(stored.hits, limit, 'and so does the running total');
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
});
