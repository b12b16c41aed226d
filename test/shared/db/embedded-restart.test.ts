import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type EmbeddedCluster, startEmbedded } from '../../../shared/db/embedded.ts';

// An embedded Postgres started with `restart` comes back by itself when its server process dies
// (here SIGKILL, as the OOM killer would; a full disk ends it too, see test/cli/full-disk.test.ts),
// and stays stopped once stopped on purpose. Its own cluster, so no other test is disturbed.

let dataDir: string;
let cluster: EmbeddedCluster;
const reports: string[] = [];

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-pg-restart-'));
  fs.chmodSync(dataDir, 0o755);
  cluster = await startEmbedded({ dataDir, reuse: false, restart: (line) => reports.push(line) });
});

after(async () => {
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function answers(): Promise<boolean> {
  const c = new pg.Client({ connectionString: cluster.url() });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

const postmasterPid = () =>
  Number(fs.readFileSync(path.join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

describe('embedded Postgres with restart', () => {
  it('is started again after its server is killed, and not after stop()', { timeout: 120_000 }, async () => {
    assert.ok(await answers());
    const first = postmasterPid();
    process.kill(first, 'SIGKILL');
    // (the server answers a moment before its supervisor, polling for that, reports it running)
    const running = () => reports.some((r) => r.includes('embedded postgres is running again'));
    for (let i = 0; !running() || !(await answers()) || postmasterPid() === first; i++) {
      assert.ok(i < 240, `answering again within a minute; reports: ${reports.join('\n')}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.match(reports[0] ?? '', /embedded postgres exited \(SIGKILL\); restarting it/);

    await cluster.stop();
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await answers(), false, 'a stopped cluster stays stopped');
  });
});
