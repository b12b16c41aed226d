import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parseCrontab } from 'graphile-worker';
import { sql } from 'kysely';
import { loadConfig } from '../../shared/config.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { addJob } from '../../shared/jobs/queue.ts';
import { startWorker, type WorkerProcess } from '../../worker/runner.ts';
import { startTestApi } from '../helpers/api.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

// What a worker writes: at info, one line per job (task, outcome, duration) and nothing from
// graphile-worker's own per-job dumps, which go to debug; a scan's phases at debug and a slow one
// at info.

interface Line {
  level: number;
  msg: string;
  task?: string;
  outcome?: string;
  ms?: number;
  phase?: string;
  scope?: unknown;
}
const INFO = 30;
const CRONTAB = fs.readFileSync(path.resolve('worker/crontab'), 'utf8');

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

/** A worker logging at debug into `lines`, so the test sees both levels. */
async function worker(env: Record<string, string> = {}, databaseUrl = db.url) {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'debug', WORKER_CONCURRENCY: '2', ...env });
  const w: WorkerProcess = await startWorker(config, databaseUrl, {
    metricsPort: null,
    // No schedule: a minute's tick during a test added the scheduled tasks' own job lines to
    // what it counts (seen in CI on a slow machine). The tests enqueue the jobs they log.
    crontab: null,
    logDestination: sink,
  });
  return { w, lines };
}

const pendingJobs = async (dbh: Db) =>
  Number(
    (await sql<{ n: string }>`select count(*) as n from graphile_worker.jobs`.execute(dbh.db)).rows[0]!.n,
  );

async function drained(dbh: Db) {
  while ((await pendingJobs(dbh)) > 0) await new Promise((r) => setTimeout(r, 100));
}

describe('worker logs', () => {
  it('an idle worker writes at most one info line per cron job, with task, outcome and duration', async () => {
    const cron = parseCrontab(CRONTAB);
    const { w, lines } = await worker();
    const startLines = lines.length;
    try {
      // Each cron job once, as the schedule enqueues them (a minute's tick and the nightly ones).
      for (const item of cron)
        await addJob(handle.db, item.task, { _cron: { ts: new Date().toISOString() } });
      await drained(handle);
    } finally {
      await w.close();
    }
    const during = lines.slice(startLines).filter((l) => !/^worker (stopping|stopped)/.test(l.msg));
    const info = during.filter((l) => l.level >= INFO);
    assert.equal(info.length, cron.length, JSON.stringify(info, null, 1));
    assert.deepEqual(info.map((l) => l.task).sort(), cron.map((c) => c.task).sort());
    for (const l of info) {
      assert.equal(l.msg, 'job done');
      assert.equal(l.outcome, 'success');
      assert.equal(typeof l.ms, 'number');
    }
    // graphile-worker's own completion lines are still there, at debug.
    const completed = during.filter((l) => l.msg.startsWith('Completed task'));
    assert.equal(completed.length, cron.length);
    assert.ok(completed.every((l) => l.level < INFO));
  });

  it('a job that fails for good writes one line with task and outcome; the stack dump is at debug', async () => {
    const { w, lines } = await worker();
    const startLines = lines.length;
    try {
      // An invalid payload fails for good on its first attempt.
      await addJob(handle.db, 'scan_url', { scanId: 42 });
      while (!lines.slice(startLines).some((l) => l.msg.startsWith('Failed task')))
        await new Promise((r) => setTimeout(r, 100));
    } finally {
      await w.close();
    }
    const during = lines.slice(startLines).filter((l) => !/^worker (stopping|stopped)/.test(l.msg));
    const loud = during.filter((l) => l.level >= INFO);
    assert.equal(loud.length, 1, JSON.stringify(loud, null, 1));
    assert.equal(loud[0]!.task, 'scan_url');
    assert.equal(loud[0]!.outcome, 'invalid_payload');
    const dump = during.filter((l) => l.msg.startsWith('Failed task'));
    assert.equal(dump.length, 1);
    assert.ok(dump[0]!.level < INFO);
  });
});

describe('scan logs', () => {
  let site: FixtureServer;
  before(async () => {
    site = await startFixtureServer({ root: path.resolve('test/fixtures/sites/quick-site') });
  });
  after(async () => {
    await site.close();
  });

  const scanOnce = async (env: Record<string, string>) => {
    const allow = { SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`, ...env };
    const t = await startTestApi(allow);
    const { w, lines } = await worker(allow, t.database.url);
    try {
      const key = await t.newKey('A', 'free');
      const res = await fetch(
        `${t.url}/api/v1/scan?url=${encodeURIComponent(site.origin)}&mode=quick&wait=60`,
        {
          headers: { authorization: `Bearer ${key}` },
        },
      );
      assert.equal(res.status, 200);
      await drained(t.handle);
    } finally {
      await w.close();
      await t.close();
    }
    return lines.filter((l) => !/^worker (started|stopping|stopped)/.test(l.msg));
  };

  it('logs every phase at debug and only the job line at info when no phase is slow', async () => {
    const lines = await scanOnce({});
    const phases = lines.filter((l) => l.msg === 'scan phase done');
    assert.deepEqual(
      phases.map((l) => l.phase),
      ['fetch', 'score'],
    );
    assert.ok(phases.every((l) => l.level < INFO));
    const info = lines.filter((l) => l.level >= INFO);
    assert.deepEqual(
      info.map((l) => `${l.task} ${l.msg}`),
      ['scan_url job done'],
    );
  });

  it('logs a phase slower than SCAN_SLOW_PHASE_MS at info', async () => {
    const lines = await scanOnce({ SCAN_SLOW_PHASE_MS: '0' });
    const slow = lines.filter((l) => l.msg === 'slow scan phase');
    assert.ok(slow.length >= 1);
    assert.ok(slow.every((l) => l.level === INFO && typeof l.ms === 'number'));
    assert.ok(slow.some((l) => l.phase === 'fetch'));
  });
});
