import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { loadConfig } from '../../shared/config.ts';
import { freePort } from '../../shared/db/embedded.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';
import { type Proc, runSightline } from '../helpers/processes.ts';
import { queueQuickScans } from '../helpers/queue-scans.ts';

// Issue 31, item 3: NUL-heavy bodies, scanned by a real `sightline worker` process. A 5 MiB page
// of NUL bytes and a gzip bomb of zeros (2 MB compressed, ~2 GB inflated; the fetch keeps 5 MiB of
// it) once drove a worker from ~0.5 to 2.4 GB and held its event loop ~15 s. Four at once must
// leave its peak resident set (the kernel's VmHWM) under WORKER_MEMORY_BUDGET_MB and its event
// loop never held over a second (the worker's own monitorEventLoopDelay, exported as
// sightline_nodejs_eventloop_lag_max_seconds: the longest delay since the previous scrape). And
// a worker over its budget stops the scan it runs, which fails cleanly with worker_memory_budget.

const MiB = 1024 * 1024;
let db: TestDatabase;
let handle: Db;
let site: FixtureServer;
let worker: Proc | undefined;

/** Gzip members of 64 MiB of zeros each, concatenated up to 2 MB: a valid gzip stream of ~2 GB. */
function gzipBomb(): Buffer {
  const member = zlib.gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: Math.ceil((2 * MiB) / member.length) }, () => member));
}

before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url, { max: 2 });
  const bomb = gzipBomb();
  const zeros = Buffer.alloc(5 * MiB);
  site = await startFixtureServer({
    routes: {
      '/zeros': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(zeros),
      '/bomb': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(bomb),
      '/plain': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            '<!doctype html><html lang="en"><head><title>Plain</title></head><body><h1>Hi</h1></body></html>',
          ),
      // Slow enough for the budget to be read while it runs.
      '/slow': (_req, res) => {
        setTimeout(
          () => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Slow</title>'),
          2000,
        );
      },
    },
  });
});

after(async () => {
  await worker?.stop();
  await site?.close();
  await handle?.close();
  await db?.drop();
});

async function startWorker(
  env: Record<string, string>,
): Promise<{ proc: Proc; metrics: () => Promise<string> }> {
  const port = await freePort();
  const proc = runSightline(['worker', '--no-migrate'], {
    DATABASE_URL: db.url,
    WORKER_METRICS_PORT: String(port),
    SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    LOG_LEVEL: 'info',
    ...env,
  });
  const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  for (let i = 0; !proc.output().includes('"worker started"'); i++) {
    assert.ok(i < 600 && proc.child.exitCode === null, `the worker started:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, metrics };
}

async function scanAll(paths: string[]) {
  const ids = await queueQuickScans(handle.db, site, paths);
  for (let i = 0; ; i++) {
    const rows = await handle.db
      .selectFrom('scans')
      .select(['id', 'status', 'error', 'artifacts'])
      .where('id', 'in', ids)
      .execute();
    if (rows.every((r) => r.status === 'done' || r.status === 'failed')) return rows;
    assert.ok(i < 1200, `scans settled within 2 minutes: ${JSON.stringify(rows.map((r) => r.status))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
const peakRssMb = (pid: number) =>
  Number(/^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

describe('NUL-heavy bodies in a worker', () => {
  it('four at once: stored, peak RSS under the budget, event loop never held 1 s', {
    timeout: 240_000,
    skip: process.platform !== 'linux' && 'reads /proc/<pid>/status',
  }, async (t) => {
    const budgetMb = loadConfig({}).WORKER_MEMORY_BUDGET_MB;
    const w = await startWorker({ WORKER_CONCURRENCY: '4' });
    worker = w.proc;
    // Modules load on the first scan; the delay histogram is read (and so reset) after it.
    const [plain] = await scanAll(['/plain']);
    assert.equal(plain!.status, 'done');
    await w.metrics();

    const rows = await scanAll(['/zeros?a', '/zeros?b', '/bomb?a', '/bomb?b']);
    const lagS = metric(await w.metrics(), 'sightline_nodejs_eventloop_lag_max_seconds');
    for (const r of rows) {
      assert.equal(r.status, 'done', JSON.stringify(r.error));
      const page = (r.artifacts as { Page: { html: string; bytes: { decoded: number } } }).Page;
      assert.equal(page.html, '', 'the NULs are dropped');
      assert.equal(page.bytes.decoded, 5 * MiB, 'the whole body was read (the bomb up to the cap)');
    }
    assert.ok(lagS < 1, `the event loop was held ${lagS} s`);
    const peak = peakRssMb(w.proc.child.pid!);
    t.diagnostic(`longest event-loop delay ${lagS.toFixed(3)} s, peak RSS ${Math.round(peak)} MB`);
    assert.ok(peak < budgetMb, `peak RSS ${peak} MB, budget ${budgetMb} MB`);
    assert.doesNotMatch(w.proc.output(), /worker memory budget exceeded/);
    await w.proc.stop();
    worker = undefined;
  });

  it('over its budget, the worker stops the running scan, which fails with worker_memory_budget', {
    timeout: 120_000,
  }, async () => {
    // 64 MB is below any worker's resident set: the first read while the scan runs trips it.
    const w = await startWorker({ WORKER_CONCURRENCY: '1', WORKER_MEMORY_BUDGET_MB: '64' });
    worker = w.proc;
    const [row] = await scanAll(['/slow']);
    assert.equal(row!.status, 'failed');
    assert.equal((row!.error as { code: string }).code, 'worker_memory_budget');
    assert.match((row!.error as { message: string }).message, /WORKER_MEMORY_BUDGET_MB/);
    assert.match(w.proc.output(), /worker memory budget exceeded: stopping the running jobs/);
    assert.equal(metric(await w.metrics(), 'sightline_worker_memory_budget_trips_total'), 1);
    assert.equal(w.proc.child.exitCode, null, 'the worker goes on');
  });
});
