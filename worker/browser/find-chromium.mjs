// Where the Chromium for full-mode scans lives. Plain ESM so scripts/setup.mjs can use it before
// anything is compiled; worker/browser/chromium.ts re-exports it with types (find-chromium.d.mts).
import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// Debian's /usr/bin/chromium is a shell wrapper that sources /etc/chromium.d (extra flags, API
// keys, a /dev/shm probe) and then execs this binary; we launch the binary with our own flags.
const DEBIAN_BINARY = '/usr/lib/chromium/chromium';
const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function isShellScript(path) {
  try {
    return readFileSync(path, { encoding: 'latin1' }).startsWith('#!');
  } catch {
    return false;
  }
}

/** Playwright's own download (`npx playwright install chromium`), when there is one. */
function playwrightExecutable() {
  try {
    const { chromium } = createRequire(import.meta.url)('playwright-core');
    const path = chromium.executablePath();
    return path && isExecutable(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * CHROMIUM_PATH, then the distribution's Chromium or Chrome, then Playwright's download.
 * Returns null when there is none (full-mode scans then fail with a clear error).
 */
export function findChromium(env = process.env) {
  const fromEnv = env.CHROMIUM_PATH?.trim();
  if (fromEnv) return isExecutable(fromEnv) ? { path: fromEnv, source: 'env' } : null;
  for (const candidate of SYSTEM_PATHS) {
    if (!isExecutable(candidate)) continue;
    const path =
      candidate === '/usr/bin/chromium' && isShellScript(candidate) && isExecutable(DEBIAN_BINARY)
        ? DEBIAN_BINARY
        : candidate;
    return { path, source: 'system' };
  }
  const bundled = playwrightExecutable();
  return bundled ? { path: bundled, source: 'playwright' } : null;
}
