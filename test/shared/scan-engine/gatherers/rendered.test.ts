import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createUrlPolicy } from '../../../../shared/net/url-policy.ts';
import { gatherRendered } from '../../../../shared/scan-engine/gatherers/rendered.ts';
import { BrowserError, findChromium } from '../../../../worker/browser/chromium.ts';
import { createBrowserPool, type WorkerBrowserPool } from '../../../../worker/browser/pool.ts';
import {
  autogroupOf,
  BACKGROUND_NICE,
  findProcesses,
  groupMembers,
  groupThreadNices,
  killGroupAndWait,
} from '../../../../worker/browser/processes.ts';
import { skipUnlessBrowser } from '../../../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../../../helpers/fixture-server.ts';

// Real Chromium against fixture servers on 127.0.0.1. Only the site's own port is allowlisted;
// a second server (the canary) stands for an address the policy forbids.

const chromium = findChromium();
const skip = skipUnlessBrowser(chromium);

const html = (body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Fixture shop</title>${head}</head><body>${body}</body></html>`;

function page(content: string) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(content);
  };
}

describe('browser pool + Rendered gatherer', { skip }, () => {
  let site: FixtureServer;
  let canary: FixtureServer;
  let pool: WorkerBrowserPool;

  before(async () => {
    canary = await startFixtureServer({ routes: {} });
    site = await startFixtureServer({
      routes: {
        '/': page(
          html(
            `<main><h1>Welcome to the shop</h1>
            <p class="intro">Hand-made goods, shipped daily. Read <a href="/about">our story</a>.</p>
            <a class="btn-primary" href="/signup" style="display:inline-block;padding:16px 24px;background:#0657c7;color:#fff">Start your free trial</a>
            <div style="width:640px;height:10px;background:#ddd"></div>
            <button style="width:24px;height:24px;padding:0">+</button>
            <a href="/cart" style="display:inline-block;width:30px;height:20px">Cart</a>
            <p style="font-size:9px">Terms apply.</p>
            <img src="/hero.png"></main>
            <script>console.error('checkout widget failed to start');</script>`,
            '<style>body{margin:8px}</style>',
          ),
        ),
        '/leaky': page(
          html(`<main><h1>Leaky</h1>
            <script src="${canary.origin}/tracker.js"></script>
            <img src="${canary.origin}/pixel.png" alt="">
            <iframe title="embed" src="${canary.origin}/embed"></iframe></main>`),
        ),
        '/slow': () => {}, // never answers
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
    await canary?.close();
  });

  it('renders desktop and mobile: overflow, small tap targets, small text, console errors, CTAs, axe', async () => {
    const r = await gatherRendered({ url: site.url }, pool);
    assert.equal(r.finalUrl, site.url);
    assert.equal(r.title, 'Fixture shop');
    assert.match(r.visibleText, /Welcome to the shop/);
    assert.match(r.html, /^<!DOCTYPE html>/);

    // The 640px bar overflows the 375px phone viewport, not the 1350px desktop one.
    assert.equal(r.mobile.width, 375);
    assert.ok(r.mobile.scrollWidth > 375, `mobile scrollWidth ${r.mobile.scrollWidth}`);
    assert.equal(r.desktop.scrollWidth, 1350);

    // The 24px button and the 30x20 link are too small; the inline link in the paragraph is exempt.
    assert.equal(r.mobile.tapTargets.tooSmall, 2);
    assert.equal(r.mobile.tapTargets.total, 3);
    assert.ok(r.mobile.tapTargets.examples.some((e) => e.startsWith('button') && e.endsWith('24x24')));
    assert.ok(r.mobile.smallTextRatio > 0 && r.mobile.smallTextRatio < 0.5);

    assert.match(r.mobile.aboveFoldText, /Welcome to the shop/);
    assert.ok(r.desktop.aboveFoldCtas.includes('Start your free trial'), r.desktop.aboveFoldCtas.join('|'));
    assert.ok(!r.desktop.aboveFoldCtas.includes('+'), 'an icon-only button is not a call to action');

    assert.ok(r.consoleErrors.includes('checkout widget failed to start'), r.consoleErrors.join('|'));
    assert.deepEqual(r.failedRequests, [{ url: `${site.origin}/hero.png`, reason: 'HTTP 404' }]);

    const imageAlt = r.axe?.violations.find((v) => v.id === 'image-alt');
    assert.ok(imageAlt, 'axe reports the image without alt');
    assert.equal(imageAlt.impact, 'critical');
    assert.equal(imageAlt.nodes, 1);
    assert.deepEqual(imageAlt.targets, ['img']); // the page's only image
    assert.ok(r.axe!.passes.includes('html-has-lang'));
    assert.ok(r.timings.loadMs >= 0);
  });

  it('runs every Chromium thread at the background priority, which Chromium cannot raise', async () => {
    await gatherRendered({ url: site.url }, pool); // renderers, compositors, IO threads all started
    const nices = await groupThreadNices(new Set(pool.stats.pids));
    assert.ok(nices.length > 10, `Chromium's threads: ${nices.length}`);
    const above = nices.filter((n) => n < BACKGROUND_NICE);
    // Chromium gives its own threads nice 0 or -8 (compositor, IO, audio), as root it may.
    assert.deepEqual(above, [], `${above.length} of ${nices.length} threads above nice ${BACKGROUND_NICE}`);
    // Its session is a scheduler autogroup of its own where the kernel makes them: weighted by
    // the group's nice value, not by its threads'.
    if (autogroupOf('self'))
      for (const pid of pool.stats.pids) assert.equal(autogroupOf(pid)?.nice, BACKGROUND_NICE, `pid ${pid}`);
  });

  it('sends every browser request through the policy proxy: a forbidden port gets nothing', async () => {
    const r = await gatherRendered({ url: `${site.origin}/leaky` }, pool);
    assert.equal(
      canary.hits.length,
      0,
      `canary was reached: ${JSON.stringify(canary.hits.map((h) => h.url))}`,
    );
    for (const p of ['/tracker.js', '/pixel.png', '/embed'])
      assert.ok(r.blockedRequests.includes(`${canary.origin}${p}`), p);
    assert.equal(new Set(r.blockedRequests).size, r.blockedRequests.length, 'listed once each');
    assert.ok(
      !r.failedRequests.some((f) => f.url.startsWith(canary.origin)),
      'blocked requests are not also failures',
    );
  });

  it('ends a session at its deadline and closes its contexts', async () => {
    await assert.rejects(
      gatherRendered({ url: `${site.origin}/slow`, timeoutMs: 1500 }, pool),
      (err: unknown) => err instanceof BrowserError && err.code === 'deadline_exceeded',
    );
    const until = Date.now() + 5000;
    while (pool.stats.contextsOpen > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(pool.stats.contextsOpen, 0);
    assert.equal(pool.stats.sessionsInUse, 0);
  });

  it('relaunches after the browser dies', async () => {
    const [pid] = pool.stats.pids;
    assert.ok(pid, 'a browser is running');
    const launches = pool.stats.launches;
    await killGroupAndWait(pid);
    const until = Date.now() + 5000;
    while (pool.stats.browserRunning && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const r = await gatherRendered({ url: `${site.origin}/leaky` }, pool);
    assert.equal(r.title, 'Fixture shop');
    assert.equal(pool.stats.launches, launches + 1);
  });

  it('close() leaves no Chromium process behind', async () => {
    const [pid] = pool.stats.pids;
    assert.ok(pid);
    const profile = /--user-data-dir=(\S+)/.exec(
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '),
    )?.[1];
    assert.ok(profile, 'the browser runs with a throwaway profile');
    assert.ok(findProcesses(profile).length > 1, 'browser and helpers found by their profile');
    await pool.close();
    assert.equal(findProcesses(profile).length, 0);
    assert.equal(groupMembers(pid).length, 0);
    await assert.rejects(
      gatherRendered({ url: site.url }, pool),
      (err: unknown) => err instanceof BrowserError && err.code === 'browser_closed',
    );
  });

  it('a worker killed with SIGKILL takes its Chromium with it', async () => {
    const script = `
      import { createUrlPolicy } from './shared/net/url-policy.ts';
      import { createBrowserPool } from './worker/browser/pool.ts';
      const pool = createBrowserPool({ policy: createUrlPolicy(''), chromiumPath: ${JSON.stringify(chromium!.path)} });
      await pool.use({}, async (s) => { await s.newContext(); console.log('pid', pool.stats.pids[0]); await new Promise(() => {}); });`;
    const worker = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      worker.stdout!.on('data', (b) => {
        out += b;
        const m = /pid (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      worker.once('exit', () => reject(new Error(`worker exited early: ${out}`)));
    });
    assert.ok(groupMembers(pid).length > 0, 'Chromium is running');
    worker.kill('SIGKILL');
    const until = Date.now() + 10_000;
    while (groupMembers(pid).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(groupMembers(pid).length, 0);
  });
});
