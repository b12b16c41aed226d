import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import type pg from 'pg';
import { createDb } from '../../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Closing a handle waits until its connections have closed, not only until pg has asked them to:
// a Postgres stopped right after (the embedded one, at shutdown) must find no backend of ours to
// end with an error.
let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  await database.drop();
});

it("a handle's close resolves after every one of its connections has closed", async () => {
  const handle = createDb(database.url, { max: 4 });
  const ended = new Map<pg.PoolClient, boolean>();
  handle.pool.on('connect', (client) => {
    ended.set(client, false);
    client.once('end', () => ended.set(client, true));
  });
  // Four connections at once, so the pool holds four when it is closed.
  await Promise.all(Array.from({ length: 4 }, () => sql`select pg_sleep(0.05)`.execute(handle.db)));
  assert.equal(ended.size, 4);
  await handle.close();
  assert.deepEqual([...ended.values()], [true, true, true, true]);
});
