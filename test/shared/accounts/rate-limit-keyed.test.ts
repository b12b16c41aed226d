import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createAccount, revokeKeys } from '../../../shared/accounts/accounts.ts';
import { authenticateAndTake } from '../../../shared/accounts/auth.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Keyed calls (shared/accounts/rate-limit.ts, takeKeyed): each call authenticated and counted by
// a statement it shares with the keyed calls in flight beside it, never more than one statement
// per call, every call counted exactly once.

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

/** Statements `work` sent through the handle's pool (one connection checked out per statement). */
async function statementsOf(work: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const count = () => n++;
  handle.pool.on('acquire', count);
  try {
    await work();
  } finally {
    handle.pool.off('acquire', count);
  }
  return n;
}

describe('keyed calls of a busy key', () => {
  it('each answer a distinct remaining count, the hour holds exactly the calls made, at most a statement a call', async () => {
    const key = await keyLimitedTo('busy@keyed.test', 1_000_000);
    let answers: Awaited<ReturnType<typeof calls>> = [];
    const statements = await statementsOf(async () => {
      answers = await calls(key.key, 3000, 20);
    });
    const remaining = answers.map((a) => (a.ok && a.rate.allowed ? a.rate.remaining : -1));
    assert.deepEqual(
      remaining.sort((a, b) => b - a),
      Array.from({ length: 3000 }, (_, i) => 1_000_000 - 1 - i),
    );
    assert.deepEqual(await counted(`key:${key.id}`), { seconds: 3000, bucket: 3000 });
    // The admissions, plus the key's last-use write (once a minute).
    assert.ok(statements <= 3000 + 1, `${statements} statements for 3,000 calls`);
  });

  it('near the limit: exactly the calls left are granted, none lost', async () => {
    const key = await keyLimitedTo('near@keyed.test', 10_040);
    const bucket = `key:${key.id}`;
    // The hour already holds 10,000 calls, made a minute ago: 40 left.
    await sql`insert into rate_limit_seconds (bucket, second, hits)
              values (${bucket}, date_trunc('second', now()) - interval '60 seconds', 10000)`.execute(
      handle.db,
    );
    await sql`insert into rate_limit_buckets (bucket, hits) values (${bucket}, 10000)`.execute(handle.db);
    const answers = await calls(key.key, 100, 20);
    const granted = answers.filter((a) => a.ok && a.rate.allowed);
    assert.equal(granted.length, 40);
    assert.deepEqual(
      granted.map((a) => (a.ok ? a.rate.remaining : -1)).sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, i) => i),
    );
    assert.deepEqual(await counted(bucket), { seconds: 10_040, bucket: 10_040 });
  });

  it('a key revoked between calls is refused on its next call, and that call is not counted', async () => {
    const key = await keyLimitedTo('revoked@keyed.test', 1_000_000);
    await calls(key.key, 400, 20);
    await revokeKeys(handle.db, key.displayPrefix);
    const after = await authenticateAndTake(handle.db, `Bearer ${key.key}`);
    assert.deepEqual(after, { ok: false, reason: 'revoked' });
    assert.equal((await counted(`key:${key.id}`)).seconds, 400);
  });
});

describe("a key's last use", () => {
  it('is written once a minute per process, not once a call', async () => {
    const key = await keyLimitedTo('touched@keyed.test', 1_000_000);
    // Every write to the key's row, as the database sees it.
    await sql`create table key_writes (at timestamptz not null default clock_timestamp())`.execute(handle.db);
    await sql`create function log_key_write() returns trigger language plpgsql as $$
              begin insert into key_writes default values; return new; end $$`.execute(handle.db);
    await sql`create trigger key_writes after update on api_keys for each row
              when (new.id = ${sql.lit(Number(key.id))}) execute function log_key_write()`.execute(handle.db);
    await calls(key.key, 600, 20);
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
