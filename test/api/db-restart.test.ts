import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type ApiServer, startApi } from '../../api/server.ts';
import { createAccount } from '../../shared/accounts/accounts.ts';
import { loadConfig } from '../../shared/config.ts';
import { type EmbeddedCluster, freePort, startEmbedded } from '../../shared/db/embedded.ts';
import { migrate } from '../../shared/db/migrate.ts';
import { createDb } from '../../shared/db/pool.ts';

// The API rides out a Postgres restart under load (issue 15): 503 problem+json with Retry-After
// while the database is away, the pool and the LISTEN connection recover by themselves, and no
// 'error' event goes unhandled (it would end this test process). This file starts its OWN
// embedded cluster on its own port and data folder, so stopping it disturbs no other test.

let dataDir: string;
let port: number;
let cluster: EmbeddedCluster;
let api: ApiServer;
let loadKey: string;
let probeKey: string;

const startCluster = () => startEmbedded({ dataDir, port, reuse: false });

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-restart-'));
  fs.chmodSync(dataDir, 0o755); // the unprivileged postgres user must be able to enter it
  port = await freePort();
  cluster = await startCluster();
  await migrate(cluster.url('postgres'));
  const handle = createDb(cluster.url('postgres'), { max: 1 });
  // Two accounts: the load spends its key's hourly calls within a second at full speed (then
  // 429s, which are its own budget at work), while the probe's key stays unspent until the
  // database is back, so the probe's answer tells recovery apart from the load's budget.
  ({
    key: { key: loadKey },
  } = await createAccount(handle.db, { email: 'restart@example.test', variant: 'A', tier: 'agent' }));
  ({
    key: { key: probeKey },
  } = await createAccount(handle.db, { email: 'restart-probe@example.test', variant: 'A', tier: 'agent' }));
  await handle.close();
  const config = loadConfig({ ...process.env, PORT: '0', LOG_LEVEL: 'silent' });
  api = await startApi(config, cluster.url('postgres'));
});

after(async () => {
  await api?.close();
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const account = (key: string) =>
  fetch(`${api.url}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } });

async function listening(): Promise<boolean> {
  const c = new pg.Client({ connectionString: cluster.url('postgres') });
  await c.connect();
  try {
    const { rows } = await c.query(
      `select 1 from pg_stat_activity where application_name = 'sightline-listen' and query ilike 'listen %'`,
    );
    return rows.length > 0;
  } finally {
    await c.end();
  }
}

describe('a Postgres restart under load', () => {
  it('answers 503 + Retry-After while the database is away and 200 again within 10 s after', async () => {
    assert.equal((await account(loadKey)).status, 200);
    assert.ok(await listening());

    const statuses = new Map<number, number>();
    const problems: { status: number; type: string | null; retryAfter: string | null; body: string }[] = [];
    let stop = false;
    const loop = async () => {
      while (!stop) {
        const res = await account(loadKey).catch(() => undefined);
        if (!res) {
          await new Promise((r) => setTimeout(r, 10));
          continue;
        }
        const body = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status !== 200)
          problems.push({
            status: res.status,
            type: res.headers.get('content-type'),
            retryAfter: res.headers.get('retry-after'),
            body,
          });
      }
    };
    const load = Array.from({ length: 20 }, loop);
    try {
      await new Promise((r) => setTimeout(r, 500));
      await cluster.stop(); // fast shutdown: every session gets 57P01
      // Down for a moment, then back on the same port and data.
      for (let i = 0; !problems.some((p) => p.status === 503); i++) {
        assert.ok(i < 100, 'saw a 503 while the database was down');
        await new Promise((r) => setTimeout(r, 50));
      }
      cluster = await startCluster();

      const back = Date.now();
      for (;;) {
        const res = await account(probeKey);
        await res.arrayBuffer();
        if (res.status === 200) break;
        assert.ok(Date.now() - back < 10_000, `still ${res.status} 10 s after the database came back`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      // Also on failure: a load left running would keep this file's process alive forever.
      stop = true;
      await Promise.all(load);
    }

    assert.deepEqual(
      [...statuses.keys()].filter((s) => s !== 200 && s !== 429 && s !== 503),
      [],
      JSON.stringify(problems.filter((p) => p.status !== 503 && p.status !== 429).slice(0, 3)),
    );
    for (const p of problems.filter((p) => p.status === 429))
      assert.equal(JSON.parse(p.body).code, 'rate_limited');
    for (const p of problems.filter((p) => p.status === 503)) {
      assert.match(p.type ?? '', /^application\/problem\+json/);
      assert.equal(p.retryAfter, '5');
      const body = JSON.parse(p.body);
      assert.equal(body.code, 'database_unavailable');
      assert.doesNotMatch(p.body, /terminat|ECONNREFUSED|57P01|postgres/i);
    }
    // The LISTEN connection is back by itself, so waiting requests are woken again.
    for (let i = 0; !(await listening()); i++) {
      assert.ok(i < 100, 'the LISTEN connection came back');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(api.services.events.connected, true);
  });
});

describe('errors outside Koa', () => {
  it('a request whose headers exceed the limit gets 431 problem+json', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const u = new URL(api.url);
      const s = net.connect(Number(u.port), u.hostname, () => {
        s.write(`GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
      });
      let data = '';
      s.on('data', (d) => (data += d.toString()));
      s.on('end', () => resolve(data));
      s.on('error', (e) => (data ? resolve(data) : reject(e)));
    });
    assert.match(raw, /^HTTP\/1\.1 431 /);
    assert.match(raw, /content-type: application\/problem\+json/i);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    assert.equal(body.status, 431);
    assert.equal(body.code, 'headers_too_large');
  });

  it('a malformed request line gets 400 problem+json', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const u = new URL(api.url);
      const s = net.connect(Number(u.port), u.hostname, () => s.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      s.on('data', (d) => (data += d.toString()));
      s.on('end', () => resolve(data));
      s.on('error', (e) => (data ? resolve(data) : reject(e)));
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
    assert.equal(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).code, 'malformed_request');
  });
});
