import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createAccount, revokeKeys } from '../../../shared/accounts/accounts.ts';
import { authenticateAndTake, releaseLeases } from '../../../shared/accounts/auth.ts';
import { LEASE_FLOOR, LEASE_MAX } from '../../../shared/accounts/leases.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { rateLimitLeases } from '../../../shared/metrics.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Leases of a busy key's calls (shared/accounts/leases.ts, sql/022): calls answered without a
// statement each while the key's hour has room, every call still counted exactly once, in its
// own second, and nothing counted that was not made once the unused rest is given back.

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

const counted = async (bucket: string) => {
  const { rows } = await sql<{ seconds: string | null; bucket: number | null }>`
    select (select sum(hits) from rate_limit_seconds where bucket = ${bucket}) as seconds,
           (select hits from rate_limit_buckets where bucket = ${bucket}) as bucket`.execute(handle.db);
  return { seconds: Number(rows[0]!.seconds ?? 0), bucket: Number(rows[0]!.bucket ?? 0) };
};

/** A new agent-tier key whose hour holds `rateLimit` calls. */
const keyLimitedTo = async (email: string, rateLimit: number) =>
  (await createAccount(handle.db, { email, variant: 'A', tier: 'agent', rateLimit })).key;

const leased = async (outcome: string) =>
  (await rateLimitLeases.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;

/** `total` calls of one key, `concurrency` at a time, as the API makes them. */
async function calls(key: string, total: number, concurrency: number) {
  const answers: Awaited<ReturnType<typeof authenticateAndTake>>[] = [];
  for (let done = 0; done < total; done += concurrency)
    answers.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(concurrency, total - done) }, () =>
          authenticateAndTake(handle.db, `Bearer ${key}`),
        ),
      )),
    );
  return answers;
}

describe('leases of a busy key', () => {
  it('answer most calls without a statement, and the hour holds exactly the calls made once given back', async () => {
    const key = await keyLimitedTo('busy@leases.test', 1_000_000);
    const answeredBefore = await leased('answered');
    const answers = await calls(key.key, 3000, 20);

    // Every call admitted. Its remaining count is the hour's as its statement saw it, which holds
    // the calls of leases not yet given back: at most a lease ending (its give-back in flight)
    // and the one after it. Once a give-back lands, later calls may show a count an earlier
    // call showed, so the counts need not be distinct; the hour's total below is exact.
    for (const a of answers) {
      assert.ok(a.ok && a.rate.allowed);
      assert.ok(a.rate.remaining <= 1_000_000 - 1);
      assert.ok(a.rate.remaining >= 1_000_000 - 3000 - 2 * LEASE_MAX, `remaining ${a.rate.remaining}`);
    }

    // Leased calls not used are still counted until their lease ends; then only calls made are.
    await releaseLeases(handle.db);
    assert.deepEqual(await counted(`key:${key.id}`), { seconds: 3000, bucket: 3000 });
    // The metric counts a lease's calls when it ends.
    const answeredFromLeases = (await leased('answered')) - answeredBefore;
    assert.ok(answeredFromLeases > 1500, `${answeredFromLeases} of 3,000 calls answered from leases`);
  });

  it('are never taken near the limit: every call there is counted by its own statement, none lost', async () => {
    const key = await keyLimitedTo('near@leases.test', LEASE_FLOOR + 40);
    const bucket = `key:${key.id}`;
    // The hour already holds LEASE_FLOOR calls, made a minute ago: 40 left.
    await sql`insert into rate_limit_seconds (bucket, second, hits)
              values (${bucket}, date_trunc('second', now()) - interval '60 seconds', ${LEASE_FLOOR})`.execute(
      handle.db,
    );
    await sql`insert into rate_limit_buckets (bucket, hits) values (${bucket}, ${LEASE_FLOOR})`.execute(
      handle.db,
    );
    const answeredBefore = await leased('answered');
    const answers = await calls(key.key, 100, 20);
    assert.equal(answers.filter((a) => a.ok && a.rate.allowed).length, 40);
    await releaseLeases(handle.db);
    assert.equal((await leased('answered')) - answeredBefore, 0);
    assert.deepEqual(await counted(bucket), { seconds: LEASE_FLOOR + 40, bucket: LEASE_FLOOR + 40 });
  });

  it('end with their second: a key revoked while it held one is refused from the next second on', async () => {
    const key = await keyLimitedTo('revoked@leases.test', 1_000_000);
    await calls(key.key, 400, 20);
    await revokeKeys(handle.db, key.displayPrefix);
    await new Promise((r) => setTimeout(r, 1100));
    const after = await authenticateAndTake(handle.db, `Bearer ${key.key}`);
    assert.deepEqual(after, { ok: false, reason: 'revoked' });
    await releaseLeases(handle.db);
    assert.equal((await counted(`key:${key.id}`)).seconds, 400);
  });
});

describe("a key's last use", () => {
  it('is written once a minute per process, not once a call, also when calls come from leases', async () => {
    const key = await keyLimitedTo('touched@leases.test', 1_000_000);
    // Every write to the key's row, as the database sees it.
    await sql`create table key_writes (at timestamptz not null default clock_timestamp())`.execute(handle.db);
    await sql`create function log_key_write() returns trigger language plpgsql as $$
              begin insert into key_writes default values; return new; end $$`.execute(handle.db);
    await sql`create trigger key_writes after update on api_keys for each row
              when (new.id = ${sql.lit(Number(key.id))}) execute function log_key_write()`.execute(handle.db);
    await calls(key.key, 600, 20);
    await releaseLeases(handle.db);
    await new Promise((r) => setTimeout(r, 200)); // the write is not awaited by the call
    const { rows } = await sql<{ n: string }>`select count(*) as n from key_writes`.execute(handle.db);
    assert.equal(Number(rows[0]!.n), 1);
    const used = await handle.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    assert.ok(used.last_used_at);
  });
});

describe('with leases off (RATE_LIMIT_LEASES=false)', () => {
  it('counts every call of a busy key by a statement', async () => {
    const key = await keyLimitedTo('unleased@leases.test', 1_000_000);
    const answeredBefore = await leased('answered');
    for (let done = 0; done < 600; done += 20)
      await Promise.all(
        Array.from({ length: 20 }, () =>
          authenticateAndTake(handle.db, `Bearer ${key.key}`, { leases: false }),
        ),
      );
    await releaseLeases(handle.db);
    assert.equal((await leased('answered')) - answeredBefore, 0);
    assert.deepEqual(await counted(`key:${key.id}`), { seconds: 600, bucket: 600 });
  });
});

describe('rate_limit_give_back', () => {
  it('returns calls to the second they were counted in, drops a second it empties, and leaves a short one alone', async () => {
    const bucket = 'test:give-back';
    await sql`insert into rate_limit_seconds (bucket, second, hits) values
              (${bucket}, date_trunc('second', now()) - interval '2 seconds', 5),
              (${bucket}, date_trunc('second', now()) - interval '1 second', 7)`.execute(handle.db);
    await sql`insert into rate_limit_buckets (bucket, hits, oldest, newest)
              values (${bucket}, 12, date_trunc('second', now()) - interval '2 seconds', date_trunc('second', now()) - interval '1 second')`.execute(
      handle.db,
    );
    const epoch = async (ago: number) =>
      Number(
        (
          await sql<{
            e: number;
          }>`select extract(epoch from date_trunc('second', now()) - ${ago} * interval '1 second')::float8 as e`.execute(
            handle.db,
          )
        ).rows[0]!.e,
      );
    const [two, one] = [await epoch(2), await epoch(1)];
    const back = (seconds: number[], counts: number[]) =>
      sql<{
        n: number;
      }>`select rate_limit_give_back(${seconds.map(() => bucket)}::text[], ${seconds}::float8[], ${counts}::int[]) as n`
        .execute(handle.db)
        .then((r) => r.rows[0]!.n);
    assert.equal(await back([one, two], [3, 9]), 3); // 9 of 5 is a mistake: left alone
    assert.deepEqual(await counted(bucket), { seconds: 9, bucket: 9 });
    assert.equal(await back([two], [5]), 5);
    assert.deepEqual(await counted(bucket), { seconds: 4, bucket: 4 });
    const { rows } = await sql<{
      oldest: Date | null;
    }>`select oldest from rate_limit_buckets where bucket = ${bucket}`.execute(handle.db);
    assert.equal(rows[0]!.oldest, null, 'first and last seconds are read afresh by the next take');
  });
});
