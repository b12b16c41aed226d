import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { createUrlPolicy } from '../../../shared/net/url-policy.ts';
import type { BrowserPool } from '../../../shared/scan-engine/browser.ts';
import { gatherRendered } from '../../../shared/scan-engine/gatherers/rendered.ts';
import { type BrowserError, findChromium } from '../../../worker/browser/chromium.ts';
import { createLighthouseRunner } from '../../../worker/browser/lighthouse.ts';
import { groupsPssBytesAsync, MemoryGuard } from '../../../worker/browser/memory.ts';
import { createBrowserPool } from '../../../worker/browser/pool.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

// Chromium's memory on hostile pages (issue 15): the pool's browser is watched against
// BROWSER_MEMORY_BUDGET_MB. Hostile targets end and leave Chromium below the budget; over the
// budget, a render and a Lighthouse run are stopped with memory_budget_exceeded.

const skip = skipUnlessBrowser(findChromium());
const MB = 1024 * 1024;

/** A guard that also remembers every process group it was asked to watch. */
class RecordingGuard extends MemoryGuard {
  groups = new Set<number>();
  override watch(pgid: number, abort: (err: BrowserError) => void) {
    this.groups.add(pgid);
    return super.watch(pgid, abort);
  }
}

const hostile: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  // A body that never ends.
  '/endless': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!doctype html><html><head><title>endless</title></head><body>');
    const chunk = `<p>${'x'.repeat(64 * 1024)}</p>`;
    const pump = () => {
      while (!req.socket.destroyed && res.write(chunk));
      if (!req.socket.destroyed) res.once('drain', pump);
    };
    pump();
  },
  // 50,000 links.
  '/links': (_req, res) => {
    const links = Array.from({ length: 50_000 }, (_, i) => `<a href="/p/${i}">link ${i}</a>`).join('\n');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>links</title></head><body>${links}</body></html>`);
  },
  // A gzip bomb: 256 MB of zeros, a few hundred KB on the wire.
  '/bomb': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
    const gz = zlib.createGzip({ level: 9 });
    gz.pipe(res);
    gz.write('<!doctype html><html><body>');
    const zeros = Buffer.alloc(MB);
    let left = 256;
    const pump = () => {
      while (left > 0) {
        left--;
        if (!gz.write(zeros)) return void gz.once('drain', pump);
      }
      gz.end();
    };
    pump();
  },
  // A server that never answers.
  '/silent': () => {},
};

describe('browser memory budget', { skip }, () => {
  let site: FixtureServer;
  let pool: BrowserPool;
  const guard = new RecordingGuard(1024);

  before(async () => {
    site = await startFixtureServer({
      routes: {
        ...hostile,
        '/': (_req, res) => {
          res
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
            .end(
              '<!doctype html><html lang="en"><head><title>ok</title></head><body><h1>fine</h1></body></html>',
            );
        },
      },
    });
    pool = createBrowserPool({ policy: createUrlPolicy(`127.0.0.1:${site.port}`), memory: guard });
  });
  after(async () => {
    await pool?.close();
    await site?.close();
  });

  for (const target of ['/endless', '/bomb', '/links', '/silent']) {
    it(`${target}: the render ends and Chromium stays below the 1024 MB budget`, async () => {
      const result = await gatherRendered(
        { url: `${site.origin}${target}`, signal: AbortSignal.timeout(30_000), timeoutMs: 20_000 },
        pool,
      ).then(
        () => 'rendered',
        (err: BrowserError) => err.code ?? 'error',
      );
      assert.ok(typeof result === 'string');
      assert.ok(guard.groups.size > 0, 'the browser was watched');
      assert.ok(guard.peakBytes > 0, 'PSS was read while the render ran');
      // Afterwards, once the session has wound down (a render that ends on its deadline answers
      // before its contexts are closed): whatever is left of the browser (nothing, when the guard
      // tore it down or the session's end retired it over the budget) stays below the budget.
      for (let i = 0; i < 100 && pool.stats.sessionsInUse > 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.equal(pool.stats.sessionsInUse, 0, 'the session wound down');
      const used = await groupsPssBytesAsync(guard.groups);
      assert.ok(used < 1024 * MB, `Chromium at ${Math.round(used / MB)} MB after ${target} (${result})`);
    });
  }

  it('over the budget a render is stopped with memory_budget_exceeded', async () => {
    const tiny = new MemoryGuard(64, 100); // any Chromium needs more than 64 MB
    const small = createBrowserPool({ policy: createUrlPolicy(`127.0.0.1:${site.port}`), memory: tiny });
    try {
      await assert.rejects(
        gatherRendered({ url: `${site.origin}/links`, signal: AbortSignal.timeout(30_000) }, small),
        (err: BrowserError) => {
          assert.equal(err.code, 'memory_budget_exceeded');
          assert.match(err.message, /BROWSER_MEMORY_BUDGET_MB/);
          return true;
        },
      );
      assert.ok(tiny.trips >= 1);
    } finally {
      await small.close();
    }
  });

  it('a browser a session leaves over the budget is retired: ended, and the next session gets a new one', async () => {
    // A guard whose periodic check never fires during the short render: only the session's end
    // sees the (any Chromium is over 64 MB) browser over the budget.
    const lazy = new MemoryGuard(64, 3_600_000);
    const small = createBrowserPool({ policy: createUrlPolicy(`127.0.0.1:${site.port}`), memory: lazy });
    try {
      const first = await gatherRendered({ url: site.url, signal: AbortSignal.timeout(30_000) }, small);
      assert.equal(first.title, 'ok');
      const [pid] = small.stats.pids;
      assert.equal(lazy.trips, 0, 'the render itself was not stopped');
      assert.equal(lazy.retirements, 1);
      assert.equal(small.stats.browserRunning, false);
      assert.equal(pid, undefined, 'the retired browser and its helpers are gone');
      await gatherRendered({ url: site.url, signal: AbortSignal.timeout(30_000) }, small);
      assert.equal(small.stats.launches, 2);
    } finally {
      await small.close();
    }
  });

  it('over the budget a Lighthouse run is stopped with memory_budget_exceeded', async () => {
    const tiny = new MemoryGuard(64, 100);
    const small = createBrowserPool({ policy: createUrlPolicy(`127.0.0.1:${site.port}`), memory: tiny });
    const lighthouse = createLighthouseRunner({ pool: small, memory: tiny });
    try {
      await assert.rejects(lighthouse.run(site.url, { timeoutMs: 60_000 }), (err: BrowserError) => {
        assert.equal(err.code, 'memory_budget_exceeded');
        return true;
      });
    } finally {
      await lighthouse.close();
      await small.close();
    }
  });
});
