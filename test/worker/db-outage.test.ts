import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../shared/config.ts';
import { type EmbeddedCluster, freePort, startEmbedded } from '../../shared/db/embedded.ts';
import { migrate } from '../../shared/db/migrate.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { createLogger } from '../../shared/logger.ts';
import { requestScan } from '../../shared/scans/scans.ts';
import type { Services } from '../../shared/services.ts';
import { startWorker, type WorkerProcess } from '../../worker/runner.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

// A worker through a 20 s database outage with 15 scans queued (issue 15). graphile-worker ends an
// internal worker that cannot record a job's outcome; ours must notice, free that job and replace
// the worker, so every scan ends `done` and the process is back to its configured concurrency.
// This file runs its OWN embedded cluster (own port, own data folder): stopping it disturbs no
// other test.

const CONCURRENCY = 4;
let dataDir: string;
let port: number;
let cluster: EmbeddedCluster;
let handle: Db;
let worker: WorkerProcess;
let site: FixtureServer;

const startCluster = () => startEmbedded({ dataDir, port, reuse: false });

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-outage-'));
  fs.chmodSync(dataDir, 0o755);
  port = await freePort();
  cluster = await startCluster();
  await migrate(cluster.url('postgres'));
  site = await startFixtureServer({
    routes: {
      // Each page takes a moment, so scans are mid-flight when the database goes away.
      '/': (_req, res) => {
        setTimeout(() => {
          res
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
            .end(
              '<!doctype html><html lang="en"><head><title>Outage</title></head><body><h1>Hi</h1></body></html>',
            );
        }, 1500);
      },
    },
  });
  handle = createDb(cluster.url('postgres'), { max: 2 });
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    WORKER_CONCURRENCY: String(CONCURRENCY),
    SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
  });
  worker = await startWorker(config, cluster.url('postgres'), { metricsPort: null, crontab: null });
});

after(async () => {
  await worker?.close();
  await handle?.close();
  await cluster?.stop();
  await site?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a 20 s database outage under a worker', () => {
  it('all 15 queued scans end done and the worker is back to its concurrency', async () => {
    assert.equal(worker.liveWorkers().length, CONCURRENCY);
    const services = {
      config: loadConfig({ ...process.env, SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` }),
      db: handle.db,
      log: createLogger('test', undefined, 'silent'),
    } as unknown as Services;
    const ids: string[] = [];
    for (let i = 0; i < 15; i++) {
      const scan = await requestScan(services, {
        url: new URL(`${site.origin}/?n=${i}`),
        mode: 'quick',
        accountId: null,
      });
      ids.push(scan.id);
    }
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
    cluster = await startCluster();

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
