import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../../shared/config.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { CHANNEL, EventListener } from '../../../shared/jobs/events.ts';
import { addJob } from '../../../shared/jobs/queue.ts';
import { reapDeadWorkers } from '../../../worker/heartbeat.ts';
import { startWorker, type WorkerProcess } from '../../../worker/runner.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
let handle: Db;
let events: EventListener;

before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url);
  events = new EventListener(db.url);
  await events.start();
});
after(async () => {
  await events.close();
  await handle.close();
  await db.drop();
});

const jobCount = async (task: string) =>
  Number(
    (
      await sql<{
        n: string;
      }>`select count(*) as n from graphile_worker.jobs where task_identifier = ${task}`.execute(handle.db)
    ).rows[0]!.n,
  );

describe('jobs', () => {
  it('a job added in a rolled-back transaction does not exist', async () => {
    await handle.db
      .transaction()
      .execute(async (trx) => {
        await addJob(trx, 'probe', { topic: 'never' });
        throw new Error('rollback');
      })
      .catch(() => {});
    assert.equal(await jobCount('probe'), 0);
    await handle.db.transaction().execute((trx) => addJob(trx, 'probe', { topic: 'x' }, { jobKey: 'k1' }));
    await handle.db.transaction().execute((trx) => addJob(trx, 'probe', { topic: 'x' }, { jobKey: 'k1' }));
    assert.equal(await jobCount('probe'), 1, 'a job key de-duplicates');
    await sql`delete from graphile_worker._private_jobs`.execute(handle.db);
  });

  it('the API-side waiter wakes when a worker signals completion, and times out otherwise', async () => {
    const worker: WorkerProcess = await startWorker(
      loadConfig({ ...process.env, WORKER_CONCURRENCY: '2' }),
      db.url,
      {
        metricsPort: null,
        crontab: null,
      },
    );
    try {
      const topic = `probe:${randomUUID()}`;
      // The waiter checks once on subscribing, then once per signal for its topic: a second
      // check means a signal reached it. An independent listener confirms the worker sent one.
      const raw = new pg.Client({ connectionString: db.url });
      await raw.connect();
      let notified = false;
      raw.on('notification', (m) => {
        if (m.payload === topic) notified = true;
      });
      await raw.query(`listen ${CHANNEL}`);
      let checks = 0;
      const waiting = events.waitFor(topic, async () => (++checks >= 2 ? 'done' : undefined), 20_000);
      await addJob(handle.db, 'probe', { topic });
      assert.equal(await waiting, 'done');
      for (let i = 0; i < 50 && !notified; i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(notified, 'the worker sent the completion signal');
      await raw.end();
      const missed = await events.waitFor(`nobody:${randomUUID()}`, async () => undefined, 300);
      assert.equal(missed, undefined);
      // an invalid payload fails the job at once and for good, rather than running the task with
      // garbage or retrying what no retry can fix (it had 5 attempts)
      const { id } = await addJob(handle.db, 'probe', { topic: 42 }, { maxAttempts: 5 });
      for (let i = 0; i < 100; i++) {
        const row = (
          await sql<{
            last_error: string | null;
            attempts: number;
            max_attempts: number;
          }>`select last_error, attempts, max_attempts from graphile_worker.jobs where id = ${id}`.execute(
            handle.db,
          )
        ).rows[0];
        if (row?.last_error) {
          assert.match(row.last_error, /invalid payload/);
          assert.equal(row.attempts, 1, 'attempted once');
          assert.equal(row.max_attempts, 1, 'no attempt left: permanently failed');
          break;
        }
        assert.ok(i < 99, 'the invalid job was attempted');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await worker.close();
    }
  });

  it('jobs locked by a worker whose heartbeat stopped are released', async () => {
    const { id } = await addJob(handle.db, 'probe', { topic: 'dead' });
    await sql`update graphile_worker._private_jobs set locked_by = 'worker-ghost', locked_at = now() - interval '2 minutes' where id = ${id}`.execute(
      handle.db,
    );
    await sql`insert into worker_heartbeats (worker_id, process, last_seen) values ('worker-ghost', 'gone:1', now() - interval '5 minutes')`.execute(
      handle.db,
    );
    const { id: liveId } = await addJob(handle.db, 'probe', { topic: 'alive' });
    await sql`update graphile_worker._private_jobs set locked_by = 'worker-live', locked_at = now() - interval '2 minutes' where id = ${liveId}`.execute(
      handle.db,
    );
    await sql`insert into worker_heartbeats (worker_id, process) values ('worker-live', 'here:1')`.execute(
      handle.db,
    );
    const freed = await reapDeadWorkers(handle.db);
    assert.deepEqual(freed, ['worker-ghost']);
    const rows = (
      await sql<{
        id: string;
        locked_by: string | null;
      }>`select id, locked_by from graphile_worker.jobs where id in (${id}, ${liveId})`.execute(handle.db)
    ).rows;
    assert.equal(rows.find((r) => String(r.id) === String(id))!.locked_by, null);
    assert.equal(rows.find((r) => String(r.id) === String(liveId))!.locked_by, 'worker-live');
  });
});

describe('worker heartbeats', () => {
  it('a running worker records a heartbeat for each of its graphile workers, and removes them on stop', async () => {
    const worker = await startWorker(loadConfig({ ...process.env, WORKER_CONCURRENCY: '2' }), db.url, {
      metricsPort: null,
      crontab: null,
    });
    let rows: { worker_id: string }[] = [];
    try {
      for (let i = 0; i < 50 && rows.length === 0; i++) {
        rows = (
          await sql<{
            worker_id: string;
          }>`select worker_id from worker_heartbeats where process like ${`%:${process.pid}`}`.execute(
            handle.db,
          )
        ).rows;
        if (rows.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(rows.length >= 1, 'heartbeat rows written');
    } finally {
      await worker.close();
    }
    const after = (
      await sql<{
        n: string;
      }>`select count(*) as n from worker_heartbeats where process like ${`%:${process.pid}`}`.execute(
        handle.db,
      )
    ).rows[0]!;
    assert.equal(Number(after.n), 0);
  });
});

describe('retention', () => {
  it('prune_scans deletes scans older than the retention period, a stranded running one too, and keeps the rest', async () => {
    await sql`insert into scans (id, url, domain, mode, status, created_at) values
      ('sc_old_done_000', 'https://a.test/', 'a.test', 'quick', 'done', now() - interval '40 days'),
      ('sc_old_running0', 'https://b.test/', 'b.test', 'quick', 'running', now() - interval '40 days'),
      ('sc_recent_done0', 'https://c.test/', 'c.test', 'quick', 'done', now() - interval '2 days')`.execute(
      handle.db,
    );
    const worker = await startWorker(loadConfig({ ...process.env, SCAN_RETENTION_DAYS: '30' }), db.url, {
      metricsPort: null,
      crontab: null,
    });
    try {
      const { id } = await addJob(handle.db, 'prune_scans', {});
      for (let i = 0; i < 100; i++) {
        const left = await sql`select 1 from graphile_worker.jobs where id = ${id}`.execute(handle.db);
        if (left.rows.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await worker.close();
    }
    const ids = (await sql<{ id: string }>`select id from scans order by id`.execute(handle.db)).rows.map(
      (r) => r.id,
    );
    // A scan still 'running' 40 days on is stranded (deadlines are minutes): it goes as well.
    assert.deepEqual(ids, ['sc_recent_done0']);
  });
});
