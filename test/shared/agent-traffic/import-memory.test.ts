import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { writeLog } from '../../helpers/access-log-gen.ts';
import { newAgentSite } from '../../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { type DnsServer, startDnsServer } from '../../helpers/dns-server.ts';

// `sightline logs import` streams in bounded memory: a generated 1,000,000-line combined log
// (35% agent lines, a fifth of them needing reverse DNS from a resolver that never answers)
// imported by the CLI with Node's heap capped at 160 MB completes, and its peak RSS stays under
// 256 MiB. Batches are released as they are stored and every cache is bounded; an import that
// kept its batches, or waited on DNS with them, ran out of heap after about 150,000 events.

const LINES = Number(process.env.IMPORT_MEMORY_LINES ?? 1_000_000);
const SIGHTLINE = fileURLToPath(new URL('../../../bin/sightline.js', import.meta.url));

let database: TestDatabase;
let handle: Db;
let dns: DnsServer;
let dir: string;
before(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  dns = await startDnsServer(null);
  dir = mkdtempSync(path.join(os.tmpdir(), 'sightline-import-memory-'));
});
after(async () => {
  await handle.close();
  await database.drop();
  await dns.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Peak resident set of a live process (Linux), in MiB; 0 once it has exited. */
function peakRssMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

it(`imports a ${LINES.toLocaleString('en')}-line log with a 160 MB heap, under 256 MiB RSS`, async () => {
  const file = path.join(dir, 'access.log');
  await writeLog(file, 'combined', { lines: LINES, days: 30, rdns: true });
  const site = await newAgentSite(handle.db, 'memory@example.test', 'https://memory.example.com/');
  const child = spawn(process.execPath, [SIGHTLINE, 'logs', 'import', '--site', site.id, '--json', file], {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      NODE_OPTIONS: '--max-old-space-size=160',
      AGENT_VERIFY_RDNS: 'true',
      AGENT_RDNS_SERVERS: dns.address,
      AGENT_RDNS_TIMEOUT_MS: '200',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  let peak = 0;
  const watch = setInterval(() => {
    peak = Math.max(peak, peakRssMiB(child.pid!));
  }, 100);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearInterval(watch);
  assert.equal(code, 0, `exit ${code}: ${err.slice(-2000)}`);
  const summary = JSON.parse(out);
  assert.equal(summary.lines, LINES);
  assert.equal(summary.badLines, 0);
  assert.ok(summary.agents > LINES / 4, `${summary.agents} agents`);
  assert.equal(summary.stored, summary.agents);
  assert.ok(summary.pendingVerification > 0, 'the reverse-DNS visits wait for the worker');
  console.log(`peak RSS ${Math.round(peak)} MiB, ${summary.seconds} s, ${summary.stored} events stored`);
  assert.ok(peak > 0 && peak < 256, `peak RSS ${Math.round(peak)} MiB`);
});
