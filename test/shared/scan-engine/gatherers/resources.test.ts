import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createUrlPolicy, type ResolvedAddress } from '../../../../shared/net/url-policy.ts';
import { SIGHTLINE_USER_AGENT } from '../../../../shared/net/user-agent.ts';
import type { ResourceEntry } from '../../../../shared/scan-engine/artifacts.ts';
import { gatherPage } from '../../../../shared/scan-engine/gatherers/page.ts';
import { gatherResources } from '../../../../shared/scan-engine/gatherers/resources.ts';
import type { GatherContext } from '../../../../shared/scan-engine/gatherers/types.ts';
import { type FixtureServer, startFixtureServer } from '../../../helpers/fixture-server.ts';

const SITES = path.resolve('test/fixtures/sites');

/** Fixture hosts are allowlisted by port; every other name fails DNS, as on a machine offline. */
const ctxFor = (server: FixtureServer, extraAllow = ''): GatherContext => ({
  url: new URL(server.url),
  policy: createUrlPolicy([`127.0.0.1:${server.port}`, extraAllow].filter(Boolean).join(','), {
    resolve: async (host): Promise<ResolvedAddress[]> => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    },
  }),
  signal: AbortSignal.timeout(30_000),
  userAgent: SIGHTLINE_USER_AGENT,
});

const byPath = (entries: ResourceEntry[]) => new Map(entries.map((e) => [new URL(e.url).pathname, e]));

describe('Resources gatherer', () => {
  let site: FixtureServer;
  let unreachable: FixtureServer;
  let many: FixtureServer;
  before(async () => {
    site = await startFixtureServer({ root: path.join(SITES, 'quick-site') });
    unreachable = await startFixtureServer({ root: path.join(SITES, 'unreachable-assets') });
    const imgs = Array.from({ length: 50 }, (_, i) => `<img src="/img/${i}.png">`).join('');
    many = await startFixtureServer({
      routes: {
        '/': (_q, r) => {
          r.writeHead(200, { 'content-type': 'text/html' });
          r.end(`<!doctype html><head><link rel="stylesheet" href="/s.css"></head><body>${imgs}</body>`);
        },
      },
    });
  });
  after(async () => {
    await Promise.all([site.close(), unreachable.close(), many.close()]);
  });

  it('lists and fetches the page resources with their facts', async () => {
    const ctx = ctxFor(site);
    const { entries, skipped } = await gatherResources(ctx, await gatherPage(ctx));
    const got = byPath(entries);
    assert.deepEqual([...got.keys()].sort(), [
      '/assets/analytics.js',
      '/assets/app.js',
      '/assets/fixture-sans.woff2', // found in style.css, not in the HTML
      '/assets/hero.svg',
      '/assets/later.js',
      '/assets/logo.svg',
      '/assets/print.css',
      '/assets/style.css',
    ]);
    assert.equal(skipped, 0);
    const blocking = entries.filter((e) => e.renderBlocking).map((e) => new URL(e.url).pathname);
    assert.deepEqual(blocking.sort(), ['/assets/app.js', '/assets/style.css']);
    assert.equal(got.get('/assets/fixture-sans.woff2')?.type, 'font');
    assert.equal(got.get('/assets/hero.svg')?.type, 'image');
    assert.equal(got.get('/assets/later.js')?.type, 'script');
    const style = got.get('/assets/style.css')!;
    assert.equal(style.status, 200);
    assert.equal(style.sameOrigin, true);
    assert.match(style.contentType ?? '', /^text\/css/);
    assert.ok((style.bytes ?? 0) > 50);
    // Stylesheets come first: they block rendering.
    assert.equal(entries[0]?.type, 'stylesheet');
  });

  it('degrades on unreachable and forbidden third-party hosts instead of failing', async () => {
    const ctx = ctxFor(unreachable);
    const { entries } = await gatherResources(ctx, await gatherPage(ctx));
    const byUrl = new Map(entries.map((e) => [e.url, e]));
    assert.equal(byUrl.get(`${unreachable.origin}/local.css`)?.status, 200);
    for (const url of [
      'http://192.0.2.1/x.js',
      'http://10.0.0.1/internal.js',
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      const e = byUrl.get(url);
      assert.equal(e?.status, null, url);
      assert.match(e?.error ?? '', /^url_not_allowed/, url);
      assert.equal(e?.sameOrigin, false);
    }
    for (const url of [
      'https://cdn.nonexistent.invalid/theme.css',
      'https://images.nonexistent.invalid/a.png',
    ]) {
      assert.match(byUrl.get(url)?.error ?? '', /^dns_failure/, url);
    }
  });

  it('caps how many resources it fetches and counts the rest', async () => {
    const ctx = ctxFor(many);
    const { entries, skipped } = await gatherResources(ctx, await gatherPage(ctx));
    assert.equal(entries.length, 40);
    assert.equal(skipped, 11); // 1 stylesheet + 50 images referenced
    assert.equal(new URL(entries[0]!.url).pathname, '/s.css');
    assert.equal(entries[0]?.status, 404);
    assert.equal(many.hits.filter((h) => h.url.startsWith('/img/')).length, 39);
  });
});
