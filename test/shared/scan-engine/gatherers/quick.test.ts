import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createUrlPolicy, type ResolvedAddress } from '../../../../shared/net/url-policy.ts';
import { SIGHTLINE_USER_AGENT } from '../../../../shared/net/user-agent.ts';
import {
  type GatherError,
  isGatherError,
  QUICK_ARTIFACTS,
} from '../../../../shared/scan-engine/artifacts.ts';
import { gatherQuick } from '../../../../shared/scan-engine/gatherers/index.ts';
import type { GatherContext } from '../../../../shared/scan-engine/gatherers/types.ts';
import { type FixtureServer, startFixtureServer } from '../../../helpers/fixture-server.ts';

const SITES = path.resolve('test/fixtures/sites');
const offlineDns = async (host: string): Promise<ResolvedAddress[]> => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

describe('gatherQuick', () => {
  let site: FixtureServer;
  let www: FixtureServer; // the apex redirects here, like example.com -> www.example.com
  let apex: FixtureServer;
  before(async () => {
    site = await startFixtureServer({ root: path.join(SITES, 'quick-site') });
    www = await startFixtureServer({ root: path.join(SITES, 'quick-site'), host: '127.0.0.3' });
    apex = await startFixtureServer({
      routes: {
        '/': (_q, r) => r.writeHead(301, { location: www.url }).end(),
        '/robots.txt': (_q, r) => r.end('User-agent: *\nDisallow: /apex-only\n'),
      },
    });
  });
  after(async () => {
    await Promise.all([site.close(), www.close(), apex.close()]);
  });

  const ctx = (url: string, allow: string, signal = AbortSignal.timeout(30_000)): GatherContext => ({
    url: new URL(url),
    policy: createUrlPolicy(allow, { resolve: offlineDns }),
    signal,
    userAgent: SIGHTLINE_USER_AGENT,
  });

  it('gathers every quick artifact of a site, reporting each phase', async () => {
    const phases: string[] = [];
    const set = await gatherQuick(ctx(site.url, `127.0.0.1:${site.port}`), (p) => phases.push(p));
    assert.deepEqual(Object.keys(set).sort(), [...QUICK_ARTIFACTS].sort());
    for (const name of QUICK_ARTIFACTS) assert.equal(isGatherError(set[name]), false, name);
    assert.equal(phases[0], 'Page');
    assert.deepEqual([...phases].sort(), [...QUICK_ARTIFACTS].sort());
    assert.equal(JSON.parse(JSON.stringify(set)).Page.status, 200, 'the set is plain JSON');
  });

  it('reads the site files from the final origin after a redirect', async () => {
    const set = await gatherQuick(ctx(apex.url, `127.0.0.1:${apex.port},127.0.0.3:${www.port}`));
    assert.ok(set.Page && !isGatherError(set.Page));
    assert.equal(set.Page.finalUrl, www.url);
    assert.ok(set.RobotsTxt && !isGatherError(set.RobotsTxt));
    assert.equal(set.RobotsTxt.url, `${www.origin}/robots.txt`);
    assert.match(set.RobotsTxt.body, /GPTBot/);
  });

  it('still runs the other gatherers against the requested origin when Page fails', async () => {
    let calls = 0;
    const flaky = await startFixtureServer({
      root: path.join(SITES, 'quick-site'),
      // The first page fetch dies mid-request; later ones (the agent fetches) get a page.
      routes: { '/': (q, r) => (calls++ === 0 ? q.socket.destroy() : r.end('<title>again</title>')) },
    });
    try {
      const set = await gatherQuick(ctx(flaky.url, `127.0.0.1:${flaky.port}`));
      const page = set.Page as GatherError;
      assert.ok(isGatherError(page));
      assert.equal(page.error.code, 'network_error');
      assert.equal((set.Resources as GatherError).error.code, 'page_unavailable');
      assert.ok(set.RobotsTxt && !isGatherError(set.RobotsTxt));
      assert.equal(set.RobotsTxt.status, 200);
      assert.ok(set.LlmsTxt && !isGatherError(set.LlmsTxt));
      assert.equal(set.LlmsTxt.parsed?.title, 'Quick Site');
    } finally {
      await flaky.close();
    }
  });

  it('turns a refused target into GatherErrors and artifacts that say so, touching nothing', async () => {
    const before = site.hits.length;
    const set = await gatherQuick(ctx(site.url, ''));
    assert.equal((set.Page as GatherError).error.code, 'url_not_allowed');
    assert.ok(set.RobotsTxt && !isGatherError(set.RobotsTxt));
    assert.equal(set.RobotsTxt.status, null);
    assert.equal(site.hits.length, before);
  });

  it('stops when the scan deadline has passed', async () => {
    const set = await gatherQuick(ctx(site.url, `127.0.0.1:${site.port}`, AbortSignal.abort()));
    for (const name of QUICK_ARTIFACTS) {
      assert.ok(isGatherError(set[name]), name);
    }
    assert.equal((set.Page as GatherError).error.code, 'timeout');
  });
});
