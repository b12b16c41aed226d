import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createUrlPolicy } from '../../shared/net/url-policy.ts';
import { gatherLighthouse } from '../../shared/scan/gatherers/lighthouse.ts';
import { BrowserError, findChromium } from '../../worker/browser/chromium.ts';
import { createLighthouseRunner, lighthouseStats } from '../../worker/browser/lighthouse.ts';
import { findProcesses } from '../../worker/browser/processes.ts';
import { skipUnlessBrowser } from '../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

const chromium = findChromium();
const skip = skipUnlessBrowser(chromium);

const waitFor = async (cond: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!cond() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return cond();
};

const isDeadline = (err: unknown) => err instanceof BrowserError && err.code === 'deadline_exceeded';

describe('Lighthouse in a child process', { skip }, () => {
  let site: FixtureServer;
  let profileRoot: string;

  before(async () => {
    site = await startFixtureServer({
      routes: {
        '/': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Small page</title>' +
              '<meta name="viewport" content="width=device-width,initial-scale=1"></head>' +
              '<body><h1>Hello</h1><p>A small page served from 127.0.0.1.</p><img src="/a.png"></body></html>',
          );
        },
        '/slow': () => {}, // never answers: Lighthouse waits until we kill it
      },
    });
    // Profiles go here, so "no Chromium left" can be checked by this path alone.
    profileRoot = mkdtempSync(path.join(os.tmpdir(), 'sl-lh-test-'));
  });

  after(async () => {
    await site?.close();
    if (profileRoot) rmSync(profileRoot, { recursive: true, force: true });
  });

  const runner = () =>
    createLighthouseRunner({
      policy: createUrlPolicy(`127.0.0.1:${site.port}`),
      chromiumPath: chromium!.path,
      profileRoot,
    });

  it('returns the four category scores and reduced audits for a local page', async () => {
    const a = await gatherLighthouse({ url: site.url, timeoutMs: 120_000 }, runner());
    assert.equal(a.lighthouseVersion, '12.8.2');
    assert.deepEqual(Object.keys(a.categories).sort(), [
      'accessibility',
      'best-practices',
      'performance',
      'seo',
    ]);
    for (const [id, score] of Object.entries(a.categories))
      assert.ok(typeof score === 'number' && score >= 0 && score <= 1, id);
    assert.equal(a.audits['image-alt']?.score, 0, 'the image without alt fails');
    assert.equal(a.audits['document-title']?.score, 1);
    assert.equal(typeof a.audits['largest-contentful-paint']?.numericValue, 'number');
    assert.equal(a.runtimeError, undefined);
    assert.ok(
      site.hits.some((h) => h.url === '/'),
      'Lighthouse loaded the page',
    );
  });

  it('kills the child and its Chromium at the deadline and leaves nothing behind', async () => {
    const killedBefore = lighthouseStats.killed;
    await assert.rejects(
      gatherLighthouse({ url: `${site.origin}/slow`, timeoutMs: 4000 }, runner()),
      isDeadline,
    );
    assert.equal(lighthouseStats.killed, killedBefore + 1);
    assert.equal(findProcesses(profileRoot).length, 0, 'no process uses a profile under the test root');
    assert.deepEqual(readdirSync(profileRoot), [], 'the throwaway profile was removed');
  });

  it('runs one at a time; a scan whose deadline passes while it waits never starts', async () => {
    const r = runner();
    const runsBefore = lighthouseStats.runs;
    const first = r.run(`${site.origin}/slow`, { timeoutMs: 3000 });
    const second = r.run(site.url, { signal: AbortSignal.timeout(500) });
    await assert.rejects(second, isDeadline);
    assert.equal(lighthouseStats.running, 1);
    await assert.rejects(first, isDeadline);
    assert.equal(lighthouseStats.runs, runsBefore + 1, 'the expired run was never started');
    assert.ok(existsSync(profileRoot));
    assert.equal(findProcesses(profileRoot).length, 0);
  });

  it('a worker killed mid-run (SIGKILL) leaves no Chromium and no profile behind', async () => {
    // A stand-in worker process that starts a run and is then killed without any chance to clean up.
    const script = `
      import { createUrlPolicy } from './shared/net/url-policy.ts';
      import { createLighthouseRunner } from './worker/browser/lighthouse.ts';
      const r = createLighthouseRunner({ policy: createUrlPolicy('127.0.0.1:${site.port}'),
        chromiumPath: ${JSON.stringify(chromium!.path)}, profileRoot: ${JSON.stringify(profileRoot)} });
      r.run('${site.origin}/slow', { timeoutMs: 60000 }).catch(() => {});`;
    const worker = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: 'ignore',
    });
    const browsers = () => findProcesses(`--user-data-dir=${profileRoot}`);
    try {
      assert.ok(await waitFor(() => browsers().length > 0, 20_000), 'Chromium started');
    } finally {
      worker.kill('SIGKILL');
    }
    assert.ok(await waitFor(() => browsers().length === 0, 10_000), 'no Chromium left');
    assert.ok(
      await waitFor(() => readdirSync(profileRoot).length === 0, 5_000),
      `profile removed: ${readdirSync(profileRoot, { recursive: true }).slice(0, 10).join(', ')}`,
    );
  });
});
