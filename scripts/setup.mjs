#!/usr/bin/env node
// `npm run setup` (and before `npm start` / `npm test`): compiles the sources into dist/ when they
// changed (scripts/build.mjs, so `sightline` starts without compiling TypeScript), and makes sure
// full-mode scans have a Chromium. Idempotent and quick when both are in place. Never fails the
// install: without dist/ the CLI runs the sources through tsx; without a browser, quick scans still
// work and full-mode scans report chromium_not_found with these same instructions.
//   SIGHTLINE_SKIP_BROWSER_INSTALL=1  only report, never run apt-get
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { findChromium } from '../worker/browser/find-chromium.mjs';
import { build } from './build.mjs';
import { distState } from './dist-state.mjs';

const log = (msg) => console.log(`[setup] ${msg}`);

function version(path) {
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

function osRelease() {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    const field = (k) => new RegExp(`^${k}="?([^"\\n]*)"?`, 'm').exec(text)?.[1] ?? '';
    return { id: field('ID'), like: field('ID_LIKE') };
  } catch {
    return { id: '', like: '' };
  }
}

function hasCommand(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function report(found) {
  const v = version(found.path);
  if (v) {
    log(`Chromium for full-mode scans: ${found.path} (${found.source}, ${v})`);
    return true;
  }
  log(`Chromium at ${found.path} (${found.source}) does not start (\`${found.path} --version\` failed).`);
  return false;
}

function instructions(os) {
  const debian = os.id === 'debian' || os.like.includes('debian');
  const ubuntu = os.id === 'ubuntu';
  const lines = [
    'No usable Chromium was found, so full-mode scans (browser render + Lighthouse) will fail with',
    'chromium_not_found. Quick scans (mode=quick) work without a browser. To enable full mode, either:',
  ];
  if (debian && !ubuntu) lines.push('  - sudo apt-get update && sudo apt-get install -y chromium');
  if (ubuntu) lines.push('  - (Ubuntu ships Chromium only as a snap, which does not run in containers)');
  lines.push(
    "  - npx playwright install --with-deps chromium   (downloads Playwright's build; needs internet)",
    '  - or install Chrome/Chromium yourself and set CHROMIUM_PATH=/path/to/chrome',
    'then run `npm run setup` again to check.',
  );
  for (const l of lines) log(l);
}

function tryAptInstall() {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  log("No Chromium found; installing Debian's chromium package with apt-get (this takes a minute)...");
  const steps = [
    ['apt-get', ['update']],
    ['apt-get', ['install', '-y', '--no-install-recommends', 'chromium', 'fonts-liberation']],
  ];
  for (const [cmd, args] of steps) {
    const r = spawnSync(cmd, args, { env, stdio: 'inherit', timeout: 15 * 60_000 });
    if (r.status !== 0) {
      log(`\`${cmd} ${args.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}).`);
      return false;
    }
  }
  return true;
}

function main() {
  const found = findChromium();
  if (found && report(found)) return;
  if (process.env.CHROMIUM_PATH?.trim()) {
    log(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not a working Chromium; fix or unset it.`);
    return;
  }
  const os = osRelease();
  const debianFamily = os.id === 'debian' || os.id === 'ubuntu' || os.like.includes('debian');
  const canApt =
    !found &&
    process.env.SIGHTLINE_SKIP_BROWSER_INSTALL !== '1' &&
    process.getuid?.() === 0 &&
    debianFamily &&
    existsSync('/etc/debian_version') &&
    hasCommand('apt-get');
  if (canApt && tryAptInstall()) {
    const installed = findChromium();
    if (installed && report(installed)) return;
  }
  instructions(os);
}

try {
  const state = distState();
  if (state !== 'current') {
    const started = Date.now();
    const n = await build();
    log(
      `compiled ${n} TypeScript files to dist/ (${state === 'missing' ? 'first build' : 'sources changed'}, ${Date.now() - started} ms)`,
    );
  }
} catch (err) {
  log(
    `build failed, so the CLI will run the sources through tsx: ${err instanceof Error ? err.message : String(err)}`,
  );
}

try {
  main();
} catch (err) {
  log(`browser setup skipped: ${err instanceof Error ? err.message : String(err)}`);
}
process.exitCode = 0;
