import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createUrlPolicy } from '../../../shared/net/url-policy.ts';
import {
  BrowserError,
  findChromium,
  requireChromium,
  resolverLockArg,
  STANDARD_ARGS,
} from '../../../worker/browser/chromium.ts';
import { createBrowserPool } from '../../../worker/browser/pool.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sl-chromium-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function fakeBrowser(name: string, mode: number): string {
  const file = path.join(dir, name);
  writeFileSync(file, '#!/bin/sh\necho "Fake Chromium 1.2.3"\n');
  chmodSync(file, mode);
  return file;
}

function runSetup(env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, ['scripts/setup.mjs'], {
    encoding: 'utf8',
    env: { ...process.env, SIGHTLINE_SKIP_BROWSER_INSTALL: '1', ...env },
    timeout: 30_000,
  });
}

describe('findChromium', () => {
  it('takes CHROMIUM_PATH first when it is executable', () => {
    const exe = fakeBrowser('chrome-ok', 0o755);
    assert.deepEqual(findChromium({ CHROMIUM_PATH: exe }), { path: exe, source: 'env' });
  });

  it('refuses a CHROMIUM_PATH that is not executable instead of silently using another browser', () => {
    const notExe = fakeBrowser('chrome-noexec', 0o644);
    assert.equal(findChromium({ CHROMIUM_PATH: notExe }), null);
    assert.throws(
      () => requireChromium({ CHROMIUM_PATH: notExe }),
      (err: unknown) =>
        err instanceof BrowserError &&
        err.code === 'chromium_not_found' &&
        err.message.includes('CHROMIUM_PATH') &&
        err.message.includes('Quick scans work without it'),
    );
  });

  it("resolves Debian's /usr/bin/chromium wrapper script to the real binary", (t) => {
    if (!existsSync('/usr/bin/chromium') || !existsSync('/usr/lib/chromium/chromium'))
      return t.skip('Debian chromium package not installed');
    assert.deepEqual(findChromium({}), { path: '/usr/lib/chromium/chromium', source: 'system' });
  });
});

describe('browser pool without a browser', () => {
  it('fails a full-mode render with chromium_not_found instead of hanging', async () => {
    const pool = createBrowserPool({
      policy: createUrlPolicy(''),
      chromiumPath: path.join(dir, 'missing-chrome'),
    });
    try {
      await assert.rejects(
        pool.use({ timeoutMs: 10_000 }, async () => 'unreachable'),
        (err: unknown) =>
          err instanceof BrowserError &&
          err.code === 'chromium_not_found' &&
          err.message.includes('CHROMIUM_PATH='),
      );
      assert.equal(pool.stats.launches, 0);
    } finally {
      await pool.close();
    }
  });
});

describe('launch arguments', () => {
  it('lock host resolution to the proxy and leave --disable-features to Playwright', () => {
    assert.equal(
      resolverLockArg('http://127.0.0.1:4567'),
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    );
    for (const flag of ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'])
      assert.ok(STANDARD_ARGS.includes(flag), flag);
    // Chromium keeps only the last --disable-features: one in STANDARD_ARGS would replace Playwright's.
    assert.ok(!STANDARD_ARGS.some((a) => a.startsWith('--disable-features')));
  });
});

describe('scripts/setup.mjs', () => {
  it('reports a working Chromium and exits 0', () => {
    const exe = fakeBrowser('chrome-setup', 0o755);
    const r = runSetup({ CHROMIUM_PATH: exe });
    assert.equal(r.status, 0);
    assert.match(r.stdout, /Chromium for full-mode scans: .*chrome-setup \(env, Fake Chromium 1\.2\.3\)/);
  });

  it('never fails the install when the configured browser is unusable', () => {
    const r = runSetup({ CHROMIUM_PATH: path.join(dir, 'missing-chrome') });
    assert.equal(r.status, 0);
    assert.match(r.stdout, /is not a working Chromium/);
  });
});
