#!/usr/bin/env node
// Test entry point (`npm test`, `npm run test:corpus`): gives the suite a real Postgres (the
// embedded one in a temporary folder, or the server in DATABASE_URL), migrates one template
// database that every test file clones, then runs node's test runner over the chosen folders.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { register } from 'tsx/esm/api';

register();
const { startEmbedded } = await import('../shared/db/embedded.ts');
const { ensureDatabase, dropDatabase } = await import('../shared/db/connect.ts');
const { migrate } = await import('../shared/db/migrate.ts');

const args = process.argv.slice(2);
// Tests mirror the tree they test (test/shared/audits/ tests shared/audits/); the corpus suite
// (test/corpus) runs on its own, and helpers and fixtures are not tests.
const NOT_THE_SUITE = new Set(['test/corpus', 'test/helpers', 'test/fixtures']);
const targets = args.length ? args : ['test'];
const files = [];
const walk = (p) => {
  if (!fs.existsSync(p) || (!args.length && NOT_THE_SUITE.has(p))) return;
  if (fs.statSync(p).isDirectory()) for (const f of fs.readdirSync(p).sort()) walk(path.join(p, f));
  else if (p.endsWith('.test.ts')) files.push(p);
};
targets.forEach(walk);
if (files.length === 0) {
  console.error(`no test files under ${targets.join(', ')}`);
  process.exit(1);
}

let cluster;
let tmp;
let adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-test-'));
  fs.chmodSync(tmp, 0o755); // the unprivileged postgres user must be able to enter it
  cluster = await startEmbedded({ dataDir: tmp, reuse: false });
  adminUrl = cluster.url('postgres');
}
const template = `sightline_tpl_${process.pid}`;
const templateUrl = new URL(adminUrl);
templateUrl.pathname = `/${template}`;
await ensureDatabase(adminUrl, template);
await migrate(templateUrl.toString());

const cleanup = async () => {
  await dropDatabase(adminUrl, template).catch(() => {});
  if (cluster) await cluster.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
};

const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`,
    '--test-reporter=spec',
    ...files,
  ],
  {
    stdio: 'inherit',
    // Its own process group, so the watchdog below can end the runner and every test file's process.
    detached: true,
    env: {
      ...process.env,
      SIGHTLINE_TEST_ADMIN_URL: adminUrl,
      SIGHTLINE_TEST_TEMPLATE: template,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    },
  },
);
const killGroup = (sig) => {
  try {
    process.kill(-child.pid, sig);
  } catch {} // already gone
};
process.on('SIGINT', () => killGroup('SIGINT'));
process.on('SIGTERM', () => killGroup('SIGTERM'));
// A test file whose process never exits (a handle left open after a failure) would otherwise hold
// the run, and CI, until an outside timeout with no word of why.
const limitMinutes = Number(process.env.TEST_RUN_TIMEOUT_MINUTES ?? 25);
const watchdog = setTimeout(() => {
  console.error(
    `\n[run-tests] the run exceeded TEST_RUN_TIMEOUT_MINUTES=${limitMinutes}: a test file's process did not exit; ending the run`,
  );
  killGroup('SIGKILL');
}, limitMinutes * 60_000);
watchdog.unref();
const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
killGroup('SIGKILL'); // a file's process the runner left behind
clearTimeout(watchdog);
await cleanup();
process.exit(code);
