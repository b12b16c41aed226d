import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { RUN_LOCK, withRunLock } from '../../../shared/jobs/run-lock.ts';
import { pruneScans } from '../../../shared/scans/retention.ts';
import { settleStrandedScan } from '../../../shared/scans/scans.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Scans have a run lock: a stranded-scan settle never fails a scan a worker holds, and rows left
// queued or running past the retention are pruned like finished ones.

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

let seq = 0;
async function scanRow(status: 'queued' | 'running' | 'done', ageDays = 0) {
  const id = `sc_runlock${String(++seq).padStart(8, '0')}`;
  await handle.db
    .insertInto('scans')
    .values({
      id,
      url: `https://run-lock-${seq}.example/`,
      domain: 'run-lock.example',
      mode: 'quick',
      status,
    })
    .execute();
  if (ageDays)
    await sql`update scans set created_at = now() - make_interval(days => ${ageDays}) where id = ${id}`.execute(
      handle.db,
    );
  return id;
}
const statusOf = async (id: string) =>
  (await handle.db.selectFrom('scans').select('status').where('id', '=', id).executeTakeFirst())?.status;

describe('scan run lock', () => {
  it('a settle leaves a scan whose run lock a worker holds, and settles it once the worker is gone', async () => {
    // No job row: to the settle, the scan looks stranded.
    const id = await scanRow('running');
    let release!: () => void;
    let locked!: () => void;
    const held = new Promise<void>((r) => (locked = r));
    const worker = withRunLock(handle.db, RUN_LOCK.scan, id, async () => {
      locked();
      await new Promise<void>((r) => (release = r));
    });
    await held;
    assert.equal(await settleStrandedScan(handle.db, { id, status: 'running' }), false);
    assert.equal(await statusOf(id), 'running');
    release();
    await worker;
    assert.equal(await settleStrandedScan(handle.db, { id, status: 'running' }), true);
    assert.equal(await statusOf(id), 'failed');
  });

  it('prune_scans deletes queued and running rows past the retention, as it does finished ones', async () => {
    const oldQueued = await scanRow('queued', 40);
    const oldRunning = await scanRow('running', 40);
    const oldDone = await scanRow('done', 40);
    const fresh = await scanRow('queued', 1);
    await pruneScans(handle.db, 30);
    assert.deepEqual(await Promise.all([oldQueued, oldRunning, oldDone, fresh].map(statusOf)), [
      undefined,
      undefined,
      undefined,
      'queued',
    ]);
  });
});
