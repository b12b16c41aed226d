import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createAccount } from '../../../shared/accounts/accounts.ts';
import { authenticateAndTake } from '../../../shared/accounts/auth.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Keyed admissions go to Postgres as a named statement, prepared once per connection. A migration
// that changes admit_keys' result columns while a process runs (a release phase ahead of a
// restart) leaves that prepared plan refusing to run; the process must keep admitting calls.

let db: TestDatabase;
let handle: Db;

before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url, { max: 1 }); // one connection: the one holding the prepared plan
});
after(async () => {
  await handle.close();
  await db.drop();
});

describe('keyed admission when admit_keys_counted changes under a running process', () => {
  it('keeps admitting after the function is replaced with other result columns', async () => {
    const { key } = await createAccount(handle.db, {
      email: 'replaced@example.test',
      variant: 'A',
      tier: 'free',
    });
    const first = await authenticateAndTake(handle.db, `Bearer ${key.key}`);
    assert.equal(first.ok, true);

    // As a later migration might: the same arguments, one more result column.
    await sql`alter function admit_keys_counted(bytea[], integer[], jsonb, interval) rename to admit_keys_before`.execute(
      handle.db,
    );
    await sql`create function admit_keys_counted(p_hashes bytea[], p_counts integer[], p_tier_limits jsonb, p_window interval)
      returns table (ord integer, id bigint, account_id bigint, variant text, tier text, rate_limit integer,
        revoked boolean, last_used_at timestamptz, count_before integer, granted integer, reset_epoch double precision,
        email text, account_tier text, beta_flags jsonb, notification_preferences jsonb,
        account_created_at timestamptz, plan text, added integer)
      language sql as $$ select b.*, 1 from admit_keys_before(p_hashes, p_counts, p_tier_limits, p_window) b $$`.execute(
      handle.db,
    );

    for (let i = 0; i < 3; i++) {
      const again = await authenticateAndTake(handle.db, `Bearer ${key.key}`);
      assert.equal(again.ok, true, `call ${i + 2} admitted`);
      if (again.ok) assert.equal(again.rate.remaining, again.rate.limit - (i + 2), 'and counted');
    }
  });
});
