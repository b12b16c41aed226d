import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createUrlPolicy } from '../../../shared/net/url-policy.ts';
import { gatherLighthouse } from '../../../shared/scan-engine/gatherers/lighthouse.ts';
import { gatherRendered } from '../../../shared/scan-engine/gatherers/rendered.ts';
import { BrowserError, findChromium } from '../../../worker/browser/chromium.ts';
import { createLighthouseRunner, lighthouseStats } from '../../../worker/browser/lighthouse.ts';
import { createBrowserPool, type WorkerBrowserPool } from '../../../worker/browser/pool.ts';
import { autogroupOf, BACKGROUND_NICE, groupMembers } from '../../../worker/browser/processes.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

// Lighthouse in a warm child process that drives the pool's browser: one child and one Chromium
// for any number of runs (and the renders beside them), a hard deadline per run that kills the
// child and closes its page, and nothing left when the worker dies.

const chromium = findChromium();
const skip = skipUnlessBrowser(chromium);

const waitFor = async (cond: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!cond() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return cond();
};

const isDeadline = (err: unknown) => err instanceof BrowserError && err.code === 'deadline_exceeded';

describe('Lighthouse in a warm child process', { skip }, () => {
  let site: FixtureServer;
  let pool: WorkerBrowserPool;
  /** Requests to /slow whose connection is still open (the page that asked is still loading). */
  let slowOpen = 0;

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
        // Never answers: Lighthouse waits until we kill it.
        '/slow': (req) => {
          slowOpen++;
          req.socket.once('close', () => slowOpen--);
        },
      },
    });
    pool = createBrowserPool({
      policy: createUrlPolicy(`127.0.0.1:${site.port}`),
      chromiumPath: chromium!.path,
    });
  });

  after(async () => {
    await pool?.close();
    await site?.close();
  });

  it('returns the four category scores and reduced audits for a local page', async () => {
    const runner = createLighthouseRunner({ pool });
    try {
      const a = await gatherLighthouse({ url: site.url, timeoutMs: 120_000 }, runner);
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
    } finally {
      await runner.close();
    }
  });

  it('keeps one child and the render’s browser across runs, with the same results each time', async () => {
    const runner = createLighthouseRunner({ pool });
    const started = lighthouseStats.childrenStarted;
    let pid: number | undefined;
    try {
      const first = await gatherLighthouse({ url: site.url, timeoutMs: 120_000 }, runner);
      pid = runner.pid;
      assert.ok(pid, 'the child stays up after its run');
      // A session of its own: its scheduler autogroup weighs below the worker's.
      if (autogroupOf('self')) assert.equal(autogroupOf(pid)?.nice, BACKGROUND_NICE);
      const rendered = await gatherRendered({ url: site.url }, pool);
      assert.equal(rendered.title, 'Small page');
      const second = await gatherLighthouse({ url: site.url, timeoutMs: 120_000 }, runner);
      assert.equal(runner.pid, pid, 'the same child ran both');
      assert.equal(lighthouseStats.childrenStarted, started + 1);
      assert.equal(pool.stats.launches, 1, 'one Chromium for every run and the render');
      // Per-run state (console messages, issues, image sizes) starts afresh in a warm child. The
      // audits compared are the ones that read it; timing audits (long-tasks is scored only when
      // a task ran over 50 ms) may differ between any two runs on a busy machine.
      for (const id of ['accessibility', 'best-practices', 'seo'])
        assert.equal(second.categories[id], first.categories[id], id);
      const perRunState = [
        'errors-in-console',
        'inspector-issues',
        'deprecations',
        'image-size-responsive',
        'image-aspect-ratio',
      ];
      for (const id of perRunState) assert.ok(first.audits[id], `${id} is in the report`);
      const scores = (r: typeof first) => perRunState.map((id) => [id, r.audits[id]?.score ?? null]);
      assert.deepEqual(scores(second), scores(first));
    } finally {
      await runner.close();
    }
    assert.equal(runner.pid, undefined);
    assert.equal(groupMembers(pid!).length, 0, 'closing the runner ends its child');
  });

  it('at the deadline kills the child, closes its page in the shared browser, and the next run gets a new child', async () => {
    const runner = createLighthouseRunner({ pool });
    try {
      const killedBefore = lighthouseStats.killed;
      const run = gatherLighthouse({ url: `${site.origin}/slow`, timeoutMs: 20_000 }, runner);
      run.catch(() => {}); // asserted below
      assert.ok(await waitFor(() => runner.pid !== undefined, 10_000), 'the child started');
      const pid = runner.pid!;
      assert.ok(await waitFor(() => slowOpen > 0, 20_000), 'the page is loading');
      await assert.rejects(run, isDeadline);
      assert.equal(lighthouseStats.killed, killedBefore + 1);
      assert.equal(groupMembers(pid).length, 0, 'the child and its process group are gone');
      assert.ok(await waitFor(() => slowOpen === 0, 10_000), 'the killed run’s page was closed');
      assert.ok(pool.stats.browserRunning, 'the browser serves on');
      const next = await gatherLighthouse({ url: site.url, timeoutMs: 120_000 }, runner);
      assert.equal(next.runtimeError, undefined);
      assert.notEqual(runner.pid, pid, 'a new child');
    } finally {
      await runner.close();
    }
  });

  it('runs one at a time; a scan whose deadline passes while it waits never starts', async () => {
    const r = createLighthouseRunner({ pool });
    try {
      const runsBefore = lighthouseStats.runs;
      const first = r.run(`${site.origin}/slow`, { timeoutMs: 3000 });
      const second = r.run(site.url, { signal: AbortSignal.timeout(500) });
      await assert.rejects(second, isDeadline);
      assert.equal(lighthouseStats.running, 1);
      await assert.rejects(first, isDeadline);
      assert.equal(lighthouseStats.runs, runsBefore + 1, 'the expired run was never started');
    } finally {
      await r.close();
    }
  });

  it('a worker killed mid-run (SIGKILL) leaves neither the Lighthouse child nor Chromium behind', async () => {
    // A stand-in worker process that starts a run and is then killed without any chance to clean up.
    const script = `
      import { createUrlPolicy } from './shared/net/url-policy.ts';
      import { createBrowserPool } from './worker/browser/pool.ts';
      import { createLighthouseRunner } from './worker/browser/lighthouse.ts';
      const pool = createBrowserPool({ policy: createUrlPolicy('127.0.0.1:${site.port}'),
        chromiumPath: ${JSON.stringify(chromium!.path)} });
      const r = createLighthouseRunner({ pool });
      r.run('${site.origin}/slow', { timeoutMs: 60000 }).catch(() => {});
      const t = setInterval(() => {
        if (r.pid && pool.stats.pids[0]) { console.log('pids', r.pid, pool.stats.pids[0]); clearInterval(t); }
      }, 50);`;
    const worker = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [child, browser] = await new Promise<number[]>((resolve, reject) => {
      let out = '';
      worker.stdout!.on('data', (b) => {
        out += b;
        const m = /pids (\d+) (\d+)/.exec(out);
        if (m) resolve([Number(m[1]), Number(m[2])]);
      });
      worker.once('exit', () => reject(new Error(`worker exited early: ${out}`)));
    });
    try {
      assert.ok(await waitFor(() => slowOpen > 0, 30_000), 'the run is under way');
      assert.ok(groupMembers(child!).length > 0 && groupMembers(browser!).length > 0);
    } finally {
      worker.kill('SIGKILL');
    }
    assert.ok(await waitFor(() => groupMembers(child!).length === 0, 10_000), 'no Lighthouse child left');
    assert.ok(await waitFor(() => groupMembers(browser!).length === 0, 10_000), 'no Chromium left');
  });
});
