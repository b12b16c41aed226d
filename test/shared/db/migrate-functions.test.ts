import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { listFunctionFiles, migrate } from '../../../shared/db/migrate.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// SQL functions live in sql/functions/*.sql, one file per capability, and every migrate applies
// them again: a database always runs the functions of the code that migrated it last.

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

describe('function files', () => {
  it('are listed in name order, the rate limiter among them', () => {
    const names = listFunctionFiles().map((f) => f.split('/').pop());
    assert.ok(names.includes('rate-limits.sql'), names.join(', '));
    assert.deepEqual(names, [...names].sort());
  });

  it('are applied again on a migrate with no migration left to apply', async () => {
    const peek = () =>
      sql<{ remaining: number }>`select remaining from rate_limit_peek('test:reapply', 7, '1 hour')`
        .execute(handle.db)
        .then((r) => r.rows[0]!.remaining);
    assert.equal(await peek(), 7);
    // A function changed behind the code's back (by hand, or by an older release's files).
    await sql`create or replace function rate_limit_peek(p_bucket text, p_limit integer, p_window interval)
      returns table (allowed boolean, remaining integer, reset_at timestamptz)
      language sql as $$ select false, -1, now() $$`.execute(handle.db);
    assert.equal(await peek(), -1);
    assert.deepEqual(await migrate(db.url), [], 'no migration applied');
    assert.equal(await peek(), 7, 'the file’s definition is back');
  });
});
