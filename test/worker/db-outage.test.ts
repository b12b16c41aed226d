import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../shared/config.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { startWorker, type WorkerProcess } from '../../worker/runner.ts';
import { type FixtureServer, slowPage, startFixtureServer } from '../helpers/fixture-server.ts';
import { type OwnCluster, startOwnCluster } from '../helpers/own-cluster.ts';
import { queueQuickScans } from '../helpers/queue-scans.ts';

// A worker through a 20 s database outage with 15 scans queued (issue 15). graphile-worker ends an
// internal worker that cannot record a job's outcome; ours must notice, free that job and replace
// the worker, so every scan ends `done` and the process is back to its configured concurrency.
// This file runs its OWN embedded cluster (own port, own data folder): stopping it disturbs no
// other test.

const CONCURRENCY = 4;
let cluster: OwnCluster;
let handle: Db;
let worker: WorkerProcess;
let site: FixtureServer;

before(async () => {
  cluster = await startOwnCluster('outage');
  // Each page takes a moment, so scans are mid-flight when the database goes away.
  site = await startFixtureServer({ routes: { '/': slowPage('Outage', 1500) } });
  handle = createDb(cluster.url, { max: 2 });
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    WORKER_CONCURRENCY: String(CONCURRENCY),
    SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
  });
  worker = await startWorker(config, cluster.url, { metricsPort: null, crontab: null });
});

after(async () => {
  await worker?.close();
  await handle?.close();
  await cluster?.close();
  await site?.close();
});

describe('a 20 s database outage under a worker', () => {
  it('all 15 queued scans end done and the worker is back to its concurrency', async () => {
    assert.equal(worker.liveWorkers().length, CONCURRENCY);
    const ids = await queueQuickScans(
      handle.db,
      site,
      Array.from({ length: 15 }, (_, i) => `/?n=${i}`),
    );
    // Wait until scans are running, then take the database away for 20 s.
    for (let i = 0; ; i++) {
      const running = await handle.db
        .selectFrom('scans')
        .select('id')
        .where('status', '=', 'running')
        .execute();
      if (running.length > 0) break;
      assert.ok(i < 200, 'scans started');
      await new Promise((r) => setTimeout(r, 50));
    }
    await cluster.stop();
    await new Promise((r) => setTimeout(r, 20_000));
    await cluster.start();

    const until = Date.now() + 180_000;
    for (;;) {
      const rows = await handle.db
        .selectFrom('scans')
        .select(['id', 'status'])
        .where('id', 'in', ids)
        .execute()
        .catch(() => []);
      const done = rows.filter((r) => r.status === 'done').length;
      const failed = rows.filter((r) => r.status === 'failed');
      assert.deepEqual(failed, [], 'no scan failed');
      if (done === ids.length) break;
      assert.ok(Date.now() < until, `only ${done} of 15 scans done 3 minutes after the outage`);
      await new Promise((r) => setTimeout(r, 500));
    }
    // Back to the configured concurrency, and no job left locked by a worker that is gone.
    for (let i = 0; worker.liveWorkers().length !== CONCURRENCY; i++) {
      assert.ok(i < 100, `live workers: ${worker.liveWorkers().length}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // (a re-run of a scan whose outcome was lost may still be finishing: it ends quickly)
    for (let i = 0; ; i++) {
      const { rows } = await sql<{ id: string; task: string; locked_by: string; attempts: number }>`
        select id, task_identifier as task, locked_by, attempts from graphile_worker.jobs
         where locked_by is not null`.execute(handle.db);
      if (rows.length === 0) break;
      assert.ok(
        i < 100,
        `jobs still locked: ${JSON.stringify(rows)}; live ${worker.liveWorkers().join(',')}`,
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    const beating = await handle.db.selectFrom('worker_heartbeats').select('worker_id').execute();
    const live = new Set(worker.liveWorkers());
    assert.ok(
      beating.every((b) => live.has(b.worker_id)),
      'heartbeats only for live workers',
    );
  });
});
