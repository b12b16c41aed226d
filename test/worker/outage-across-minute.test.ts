import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { freePort } from '../../shared/db/embedded.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { type FixtureServer, slowPage, startFixtureServer } from '../helpers/fixture-server.ts';
import { type OwnCluster, startOwnCluster } from '../helpers/own-cluster.ts';
import { type Proc, runSightline } from '../helpers/processes.ts';
import { queueQuickScans } from '../helpers/queue-scans.ts';

// Issue 31, item 1: Postgres away for 70 s, so at least one minute boundary passes while it is
// down and every process's cron tick fails. A `sightline worker` and a `sightline start` (API and
// worker in one process), both with the shipped crontab, must stay alive, run the queued scans
// once the database is back, and start scheduling cron again. This file runs its OWN embedded
// cluster (own port, own data folder): stopping it disturbs no other test.

const OUTAGE_MS = 70_000;
let cluster: OwnCluster;
let handle: Db;
let site: FixtureServer;
let worker: Proc;
let start: Proc;
let apiUrl: string;

async function waitFor(what: string, ok: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    assert.ok(Date.now() < until, `${what} within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const alive = (p: Proc) => p.child.exitCode === null && p.child.signalCode === null;

before(async () => {
  cluster = await startOwnCluster('minute-outage');
  handle = createDb(cluster.url, { max: 2 });
  // Each page takes a moment, so scans are mid-flight when the database goes away.
  site = await startFixtureServer({ routes: { '/': slowPage('Minute', 1500) } });
  const env = {
    DATABASE_URL: cluster.url,
    SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    WORKER_CONCURRENCY: '2',
    LOG_LEVEL: 'info',
  };
  worker = runSightline(['worker', '--no-migrate'], { ...env, WORKER_METRICS_PORT: '0' });
  const apiPort = await freePort();
  start = runSightline(['start', '--no-migrate'], { ...env, PORT: String(apiPort) });
  apiUrl = `http://127.0.0.1:${apiPort}`;
  await waitFor('the worker started', () => worker.output().includes('"worker started"'), 60_000);
  await waitFor('start serves and runs its worker', () => start.output().includes('worker running'), 60_000);
});

after(async () => {
  await worker?.stop();
  await start?.stop();
  await handle?.close();
  await cluster?.close();
  await site?.close();
});

describe('Postgres down for 70 s across a minute boundary', () => {
  it('a worker and `start` stay alive, finish the queued scans and schedule cron again', {
    timeout: 300_000,
  }, async () => {
    const ids = await queueQuickScans(
      handle.db,
      site,
      Array.from({ length: 8 }, (_, i) => `/?n=${i}`),
    );
    await waitFor(
      'scans running',
      async () =>
        (await handle.db.selectFrom('scans').select('id').where('status', '=', 'running').execute()).length >
        0,
      30_000,
    );
    await cluster.stop();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    assert.ok(alive(worker), `the worker exited during the outage:\n${worker.output().slice(-3000)}`);
    assert.ok(alive(start), `start exited during the outage:\n${start.output().slice(-3000)}`);
    await cluster.start();
    const { rows } = await sql<{ now: Date }>`select now()`.execute(handle.db);
    const back = rows[0]!.now;

    await waitFor(
      'every queued scan done',
      async () => {
        const done = await handle.db
          .selectFrom('scans')
          .select('id')
          .where('id', 'in', ids)
          .where('status', '=', 'done')
          .execute()
          .catch(() => []);
        return done.length === ids.length;
      },
      120_000,
    );
    // The API of `start` answers from the database again.
    const res = await fetch(`${apiUrl}/api/v1/scans/${ids[0]}?view=b`);
    assert.equal(res.status, 200, await res.text());
    // Cron runs again: the next minute's tick is scheduled after the database came back.
    await waitFor(
      'a cron tick scheduled after the restart',
      async () => {
        const { rows } = await sql<{ last: Date | null }>`
          select last_execution as last from graphile_worker._private_known_crontabs
           where identifier = 'reap_dead_workers'`.execute(handle.db);
        return !!rows[0]?.last && rows[0].last > back;
      },
      75_000,
    );
    for (const [name, p] of [
      ['worker', worker],
      ['start', start],
    ] as const) {
      assert.ok(alive(p), `${name} is alive`);
      assert.match(p.output(), /cron stopped/, `${name} logged its cron stopping`);
      assert.match(p.output(), /cron running again/, `${name} logged its cron back`);
    }
  });
});
