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
  launchArgs,
  requireChromium,
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
    const saved = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = path.join(dir, 'missing-chrome');
    const pool = createBrowserPool({ policy: createUrlPolicy('') });
    try {
      await assert.rejects(
        pool.use({ timeoutMs: 10_000 }, async () => 'unreachable'),
        (err: unknown) => err instanceof BrowserError && err.code === 'chromium_not_found',
      );
      assert.equal(pool.stats.launches, 0);
    } finally {
      await pool.close();
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
  });
});

describe('launch arguments', () => {
  it('route everything, loopback included, through the proxy and use the given profile', () => {
    const args = launchArgs({ proxyUrl: 'http://127.0.0.1:4567', userDataDir: '/tmp/profile-x' });
    assert.ok(args.includes('--proxy-server=http://127.0.0.1:4567'));
    assert.ok(args.includes('--proxy-bypass-list=<-loopback>'));
    assert.ok(args.includes('--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'));
    assert.ok(args.includes('--user-data-dir=/tmp/profile-x'));
    for (const flag of ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'])
      assert.ok(STANDARD_ARGS.includes(flag), flag);
    // Chromium keeps only the last --disable-features: one in STANDARD_ARGS would replace Playwright's.
    assert.ok(!STANDARD_ARGS.some((a) => a.startsWith('--disable-features')));
    assert.equal(args.filter((a) => a.startsWith('--disable-features=')).length, 1);
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
