import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../shared/config.ts';
import { createUrlPolicy } from '../../../shared/net/url-policy.ts';
import { runScan } from '../../../shared/scans/gather-and-score.ts';
import { findChromium } from '../../../worker/browser/chromium.ts';
import { browserResources, closeBrowserResources } from '../../../worker/browser/resources.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

// The phases a full scan reports as it goes (what pollers and the CLI show): the browser render
// and Lighthouse as their own phases, side by side while they overlap, then scoring.

const installed = findChromium();
let site: FixtureServer;

before(async () => {
  site = await startFixtureServer({ root: path.resolve('test/fixtures/sites/quick-site') });
});
after(async () => {
  await site.close();
  await closeBrowserResources();
});

describe('full scan phases', () => {
  it('reports fetch, render and lighthouse as they run, then score; each phase ends once', {
    skip: skipUnlessBrowser(installed),
  }, async () => {
    const config = loadConfig({ ...process.env, SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
    const phases: string[] = [];
    const done: string[] = [];
    const out = await runScan(new URL(`${site.origin}/`), 'full', {
      policy: createUrlPolicy(`127.0.0.1:${site.port}`),
      browser: () => browserResources(config),
      signal: AbortSignal.timeout(240_000),
      onPhase: (p) => phases.push(p),
      onPhaseDone: (p, ms) => {
        assert.ok(ms >= 0);
        done.push(p);
      },
    });
    assert.ok(out.results['site-audit']);
    // The three gatherings start together; the names shrink as each ends, then scoring.
    assert.equal(phases[0], 'fetch');
    assert.ok(phases.includes('fetch+render+lighthouse'), phases.join(' > '));
    assert.ok(
      phases.some((p) => p === 'lighthouse' || p === 'render' || p === 'render+lighthouse'),
      phases.join(' > '),
    );
    assert.equal(phases.at(-1), 'score');
    for (let i = 1; i < phases.length; i++)
      assert.notEqual(phases[i], phases[i - 1], 'only changes are reported');
    assert.deepEqual([...done].sort(), ['fetch', 'lighthouse', 'render', 'score']);
    assert.equal(done.at(-1), 'score');
  });
});
