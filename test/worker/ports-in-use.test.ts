import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../shared/config.ts';
import { freePort } from '../../shared/db/embedded.ts';
import { startWorker, type WorkerProcess } from '../../worker/runner.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { runSightline } from '../helpers/processes.ts';

// A port someone else holds: the API stops (a supervisor then sees it and restarts it), a second
// worker on one host keeps working without its own /metrics.

let db: TestDatabase;
let holder: net.Server;
let taken: number;
before(async () => {
  db = await createTestDatabase();
  taken = await freePort();
  holder = net.createServer();
  await new Promise<void>((r) => holder.listen(taken, '127.0.0.1', () => r()));
});
after(async () => {
  await new Promise((r) => holder.close(r));
  await db.drop();
});

describe('ports already in use', () => {
  it('sightline api exits, naming the port, instead of running on without serving', {
    timeout: 60_000,
  }, async () => {
    const api = runSightline(['api', '--no-migrate'], {
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      PORT: String(taken),
      LOG_LEVEL: 'info',
    });
    const code = await Promise.race([
      new Promise<number | null>((r) => api.child.once('exit', r)),
      new Promise<'running'>((r) => setTimeout(() => r('running'), 20_000)),
    ]);
    if (code === 'running') await api.stop('SIGKILL');
    assert.notEqual(code, 'running', `still running 20 s later: ${api.output()}`);
    assert.notEqual(code, 0);
    assert.match(api.output(), /EADDRINUSE/);
  });

  it('a worker whose metrics port is taken starts anyway, says so, and serves no /metrics', {
    timeout: 60_000,
  }, async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const config = loadConfig({ ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1' });
    let w: WorkerProcess | undefined;
    try {
      w = await startWorker(config, db.url, { metricsPort: taken, crontab: null, logDestination: sink });
      assert.equal(w.metricsUrl, undefined);
      assert.ok(
        lines.some((l) => l.includes('worker /metrics not served') && l.includes('WORKER_METRICS_PORT')),
        lines.join(''),
      );
      assert.ok(lines.some((l) => l.includes('"worker started"')));
    } finally {
      await w?.close();
    }
  });
});
