import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createAccount } from '../../shared/accounts/accounts.ts';
import { registerSite } from '../../shared/agent-sites/sites.ts';
import { freePort } from '../../shared/db/embedded.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { type Proc, runSightline } from '../helpers/processes.ts';

// Issue 31, item 2: `sightline start` whose embedded Postgres lives on a filesystem that fills
// up (a 256 MB tmpfs). While agent traffic is being collected: writes answer 503 storage_full
// with Retry-After (logged once), the server PANICs when its WAL needs a new segment and cannot
// recover while the disk is full, `start` keeps restarting it (503 database_unavailable
// meanwhile) and, once space is freed, serves again by itself. Every batch answered 202 is
// stored. Mounting a tmpfs needs root (CAP_SYS_ADMIN): elsewhere the test says so and skips.

const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-full-disk-'));
let skip: string | false = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256m,mode=0755', 'tmpfs', mnt], { stdio: 'pipe' });
} catch (err) {
  skip = `cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): ${(err as Error).message.split('\n')[0]}`;
}

let start: Proc | undefined;
let handle: Db | undefined;
after(async () => {
  await start?.stop();
  await handle?.close();
  if (!skip) execFileSync('umount', [mnt]);
  fs.rmSync(mnt, { recursive: true, force: true });
});

const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
const BATCH = 100;

async function waitFor(what: string, ok: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    assert.ok(Date.now() < until, `${what} within ${ms / 1000} s\n${start?.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Fills the filesystem with one file until it refuses to take more. */
function fill(file: string): void {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(1 << 20, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes the server need a new WAL segment now, as further traffic would: a WAL record (a logical
 * message, which touches no table) and a segment switch, until the server goes down.
 */
async function rollWalUntilDown(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  try {
    for (let i = 0; i < 200; i++) {
      await c.query(`select pg_logical_emit_message(false, 'sightline-test', 'x'), pg_switch_wal()`);
    }
    assert.fail('the server took 200 WAL segments on a full disk');
  } catch (err) {
    if ((err as Error).name === 'AssertionError') throw err;
  } finally {
    await c.end().catch(() => {});
  }
}

describe('a full disk under `sightline start`', { skip }, () => {
  it('503 storage_full, the embedded Postgres restarted, service back once space is freed, no 202 lost', {
    timeout: 240_000,
  }, async () => {
    const apiPort = await freePort();
    const pgPort = await freePort();
    start = runSightline(['start'], {
      DATA_DIR: mnt,
      PORT: String(apiPort),
      EMBEDDED_PG_PORT: String(pgPort),
      WORKER_CONCURRENCY: '1',
      LOG_LEVEL: 'info',
    });
    const api = `http://127.0.0.1:${apiPort}`;
    await waitFor('the API', () => start!.output().includes('Sightline API listening'), 90_000);
    const dbUrl = `postgres://postgres:sightline@127.0.0.1:${pgPort}/sightline`;
    handle = createDb(dbUrl, { max: 1 });
    const { account } = await createAccount(handle.db, {
      email: 'full@x.test',
      variant: 'B',
      tier: 'optimisation',
    });
    const { site, ingestToken } = await registerSite(handle.db, {
      accountId: account.id,
      url: 'https://full.example',
    });

    const acked = new Set<number>();
    const answers: { status: number; code?: string; retryAfter: string | null; type: string | null }[] = [];
    let next = 0;
    let stop = false;
    const load = async () => {
      while (!stop) {
        const batch = next++;
        const requests = Array.from({ length: BATCH }, (_, i) => ({
          time: new Date().toISOString(),
          method: 'GET',
          path: `/b${batch}/p${i}`,
          status: 200,
          ip: '20.171.206.7',
          user_agent: GPTBOT,
        }));
        const res = await fetch(`${api}/api/v1/collect`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ingestToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ site: site.tracking_id, requests }),
        }).catch(() => undefined);
        if (!res) continue;
        const body = (await res.json()) as { code?: string };
        if (res.status === 202) acked.add(batch);
        answers.push({
          status: res.status,
          code: body.code,
          retryAfter: res.headers.get('retry-after'),
          type: res.headers.get('content-type'),
        });
        if (res.status !== 202) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const loops = [load(), load()];
    try {
      await waitFor('batches stored', () => acked.size >= 20, 30_000);
      fill(path.join(mnt, 'fill'));
      await waitFor('a 503 storage_full', () => answers.some((a) => a.code === 'storage_full'), 60_000);
      await rollWalUntilDown(dbUrl);
      await waitFor(
        'the restart attempts',
        () => start!.output().includes('embedded postgres exited'),
        30_000,
      );
      const seen = answers.length;
      await waitFor(
        'a 503 while the server is down',
        () => answers.slice(seen).some((a) => a.code === 'database_unavailable'),
        30_000,
      );
      assert.equal(start.child.exitCode, null, 'start is alive');

      fs.rmSync(path.join(mnt, 'fill'));
      const freed = answers.length;
      await waitFor('202 again', () => answers.slice(freed).some((a) => a.status === 202), 90_000);
      await waitFor(
        'the restart',
        () => start!.output().includes('embedded postgres is running again'),
        10_000,
      );
    } finally {
      stop = true;
      await Promise.all(loops);
    }

    const unexpected = answers.filter((a) => a.status !== 202 && a.status !== 503);
    assert.deepEqual(unexpected, [], 'only 202 and 503');
    for (const a of answers.filter((a) => a.status === 503)) {
      assert.match(a.type ?? '', /^application\/problem\+json/);
      assert.ok(a.code === 'storage_full' || a.code === 'database_unavailable', a.code);
      assert.equal(a.retryAfter, a.code === 'storage_full' ? '30' : '5');
    }
    // Logged once as such, not once per request.
    assert.equal(start.output().split('out of disk space').length - 1, 1);
    // Nothing answered 202 was lost.
    const { rows } = await sql<{ batch: string; n: number }>`
      select split_part(path, '/', 2) as batch, count(*)::int as n from agent_events
       where site_id = ${site.id} group by 1`.execute(handle.db);
    const stored = new Map(rows.map((r) => [Number(r.batch.slice(1)), r.n]));
    const lost = [...acked].filter((b) => stored.get(b) !== BATCH);
    assert.deepEqual(lost, [], `${acked.size} batches answered 202`);
  });
});
