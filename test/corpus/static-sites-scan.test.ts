import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../shared/config.ts';
import { createUrlPolicy } from '../../shared/net/url-policy.ts';
import type { ModelScore } from '../../shared/scan-engine/engine.ts';
import { runScan } from '../../shared/scans/gather-and-score.ts';
import { browserResources, closeBrowserResources } from '../../worker/browser/resources.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

// The corpus static sites served on 127.0.0.1 and scanned end to end through the real gatherers
// (not hand-built artifacts): the issue's acceptance cases for the scan engine.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SITES = path.join(CORPUS, 'static-sites');
const present = fs.existsSync(SITES);

let server: FixtureServer;
before(async () => {
  if (present) server = await startFixtureServer({ root: SITES });
});
after(async () => {
  await server?.close();
  await closeBrowserResources();
});

const policy = () => createUrlPolicy(`127.0.0.1:${server.port}`);
const dim = (r: ModelScore, id: string) => r.dimensions.find((d) => d.id === id)!;

async function scan(rel: string, mode: 'quick' | 'full') {
  const config = loadConfig({ ...process.env, SCAN_ALLOW_HOSTS: `127.0.0.1:${server.port}` });
  const started = Date.now();
  const out = await runScan(new URL(`${server.origin}/${rel}`), mode, {
    policy: policy(),
    browser: () => browserResources(config),
    signal: AbortSignal.timeout(mode === 'full' ? 240_000 : 60_000),
  });
  return { ...out, site: out.results['site-audit']!, seconds: (Date.now() - started) / 1000 };
}

describe('static corpus sites, scanned over HTTP', {
  skip: present ? false : `corpus not found at ${SITES}`,
}, () => {
  it('w3c-bad-demo: accessibility of after/home is at least 25 points above before/home (quick)', async () => {
    const before = dim((await scan('w3c-bad-demo/before/home.html', 'quick')).site, 'accessibility');
    const after = dim((await scan('w3c-bad-demo/after/home.html', 'quick')).site, 'accessibility');
    assert.ok(after.score! - before.score! >= 25, `after ${after.score} vs before ${before.score}`);
  });

  it('h5bp boilerplate: the missing title, description and language are seo issues', async () => {
    const seo = dim((await scan('h5bp-boilerplate-dist/index.html', 'quick')).site, 'seo');
    const issues = seo.issues.join('\n');
    assert.match(issues, /no <title>/i);
    assert.match(issues, /description is missing/i);
    assert.match(issues, /no lang/i);
  });

  it('startbootstrap landing page: call to action and signup form found, though its CDN assets are unreachable', async () => {
    const r = await scan('startbootstrap-landing-page/index.html', 'quick');
    const passes = dim(r.site, 'conversion').passes.join('\n');
    assert.match(passes, /call to action/i);
    assert.match(passes, /signup form/i);
  });

  it('full mode: the browser render and Lighthouse agree, and the unreachable CDN does not hang the scan', async () => {
    const before = await scan('w3c-bad-demo/before/home.html', 'full');
    const after = await scan('w3c-bad-demo/after/home.html', 'full');
    for (const r of [before, after]) {
      assert.ok(
        !('error' in (r.artifacts.Rendered ?? {})),
        `rendered: ${JSON.stringify(r.artifacts.Rendered).slice(0, 300)}`,
      );
      assert.ok(
        !('error' in (r.artifacts.Lighthouse ?? {})),
        `lighthouse: ${JSON.stringify(r.artifacts.Lighthouse).slice(0, 300)}`,
      );
    }
    const a = dim(after.site, 'accessibility').score!;
    const b = dim(before.site, 'accessibility').score!;
    assert.ok(a - b >= 25, `full mode: after ${a} vs before ${b}`);
    const landing = await scan('startbootstrap-landing-page/index.html', 'full');
    assert.ok(
      !('error' in (landing.artifacts.Rendered ?? {})),
      'landing page rendered despite unreachable CDN assets',
    );
    assert.match(dim(landing.site, 'conversion').passes.join('\n'), /call to action/i);
  });
});
