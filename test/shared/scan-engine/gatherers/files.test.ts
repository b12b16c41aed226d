import assert from 'node:assert/strict';
import type http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { createUrlPolicy } from '../../../../shared/net/url-policy.ts';
import { SIGHTLINE_USER_AGENT } from '../../../../shared/net/user-agent.ts';
import type { PageArtifact } from '../../../../shared/scan-engine/artifacts.ts';
import { gatherLlmsTxt } from '../../../../shared/scan-engine/gatherers/llms-txt.ts';
import { gatherPage } from '../../../../shared/scan-engine/gatherers/page.ts';
import { gatherRobotsTxt } from '../../../../shared/scan-engine/gatherers/robots-txt.ts';
import { gatherSitemap } from '../../../../shared/scan-engine/gatherers/sitemap.ts';
import type { GatherContext } from '../../../../shared/scan-engine/gatherers/types.ts';
import { gatherWellKnown } from '../../../../shared/scan-engine/gatherers/well-known.ts';
import { closeScoreThread, scoringThread } from '../../../../shared/scan-engine/score-thread.ts';
import { type FixtureServer, startFixtureServer } from '../../../helpers/fixture-server.ts';

const SITE = path.resolve('test/fixtures/sites/quick-site');

const ctxFor = (server: FixtureServer, allow = `127.0.0.1:${server.port}`): GatherContext => ({
  url: new URL(server.url),
  policy: createUrlPolicy(allow),
  signal: AbortSignal.timeout(20_000),
  userAgent: SIGHTLINE_USER_AGENT,
});

const xml = (body: string) => (_q: http.IncomingMessage, r: http.ServerResponse) => {
  r.writeHead(200, { 'content-type': 'application/xml' });
  r.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
};
const urlset = (origin: string, paths: string[], lastmod?: string) =>
  `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
    .map((p) => `<url><loc>${origin}${p}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`)
    .join('')}</urlset>`;

describe('file gatherers on a complete site', () => {
  let site: FixtureServer;
  let page: PageArtifact;
  before(async () => {
    let origin = '';
    site = await startFixtureServer({
      root: SITE,
      routes: {
        '/sitemap-index.xml': (q, r) =>
          xml(
            `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <sitemap><loc>${origin}/sitemaps/pages.xml</loc></sitemap>
              <sitemap><loc>${origin}/sitemaps/posts.xml.gz</loc></sitemap>
            </sitemapindex>`,
          )(q, r),
        '/sitemaps/pages.xml': (q, r) => xml(urlset(origin, ['/', '/about', '/pricing'], '2026-01-02'))(q, r),
        '/sitemaps/posts.xml.gz': (_q, r) => {
          r.writeHead(200, { 'content-type': 'application/gzip' });
          r.end(zlib.gzipSync(urlset(origin, ['/posts/1', '/posts/2'])));
        },
      },
    });
    origin = site.origin;
    page = await gatherPage(ctxFor(site));
  });
  after(async () => {
    await site.close();
    await closeScoreThread();
  });

  it('reads robots.txt', async () => {
    const robots = await gatherRobotsTxt(ctxFor(site), new URL(site.url));
    assert.equal(robots.url, `${site.origin}/robots.txt`);
    assert.equal(robots.status, 200);
    assert.match(robots.contentType ?? '', /^text\/plain/);
    assert.match(robots.body, /User-agent: GPTBot\nDisallow: \/private\//);
    assert.equal(robots.error, undefined);
  });

  it('follows robots.txt Sitemap lines into an index, one level, gzip included', async () => {
    const ctx = ctxFor(site);
    const robots = await gatherRobotsTxt(ctx, new URL(site.url));
    const sitemap = await gatherSitemap(ctx, new URL(site.url), robots);
    assert.equal(sitemap.found, true);
    // Declared first; /sitemap.xml does not exist here and is not an error since one was declared.
    assert.deepEqual(sitemap.sources, [`${site.origin}/sitemap-index.xml`]);
    assert.equal(sitemap.urlCount, 5);
    assert.deepEqual(
      [...sitemap.urls].sort(),
      ['/', '/about', '/posts/1', '/posts/2', '/pricing'].map((p) => `${site.origin}${p}`),
    );
    assert.deepEqual(sitemap.lastmods, ['2026-01-02', '2026-01-02', '2026-01-02']);
    assert.deepEqual(sitemap.errors, []);
  });

  it('gathers the same sitemap and well-known files with their parsing in the scoring thread', async () => {
    const local = ctxFor(site);
    const threaded: GatherContext = { ...ctxFor(site), cpuThread: scoringThread };
    const robots = await gatherRobotsTxt(local, new URL(site.url));
    assert.deepEqual(
      await gatherSitemap(threaded, new URL(site.url), robots),
      await gatherSitemap(local, new URL(site.url), robots),
    );
    // Copies of the page: its links are read once per page object, here once each way.
    const wk = await gatherWellKnown(threaded, new URL(site.url), { ...page });
    assert.deepEqual(wk, await gatherWellKnown(local, new URL(site.url), { ...page }));
    assert.equal(wk.openapi.status, 200, 'found through the page link the thread read');
  });

  it('reads and parses llms.txt and notices llms-full.txt', async () => {
    const llms = await gatherLlmsTxt(ctxFor(site), new URL(site.url));
    assert.equal(llms.status, 200);
    assert.equal(llms.fullUrl, `${site.origin}/llms-full.txt`);
    assert.ok(llms.parsed);
    assert.equal(llms.parsed.valid, true);
    assert.equal(llms.parsed.title, 'Quick Site');
    assert.deepEqual(
      llms.parsed.sections.map((s) => s.name),
      ['Docs', 'Optional'],
    );
    assert.equal(llms.parsed.hasOptional, true);
  });

  it('reads well-known files, and finds the OpenAPI description the page links to', async () => {
    const wk = await gatherWellKnown(ctxFor(site), new URL(site.url), page);
    assert.equal(wk.securityTxt.status, 200);
    assert.match(wk.securityTxt.body, /^Contact: mailto:security@quick-site\.test/);
    assert.equal(wk.mcp.status, 200);
    assert.equal(JSON.parse(wk.mcp.body).name, 'quick-site');
    assert.equal(wk.agent.status, 404);
    assert.equal(wk.agent.body, '');
    assert.equal(wk.aiPlugin.status, 404);
    // No /openapi.json, so the page's <link rel="service-desc"> is used.
    assert.equal(wk.openapi.url, `${site.origin}/docs/api.json`);
    assert.equal(JSON.parse(wk.openapi.body).openapi, '3.1.0');
  });
});

describe('file gatherers on a bare site', () => {
  let site: FixtureServer;
  before(async () => {
    site = await startFixtureServer({
      routes: {
        '/': (_q, r) => r.end('<!doctype html><title>bare</title>'),
        // A single-page app answering every path with its shell: a soft 404.
        '/llms-full.txt': (_q, r) => {
          r.writeHead(200, { 'content-type': 'text/html' });
          r.end('<!doctype html><div id=app></div>');
        },
        '/security.txt': (_q, r) => r.end('Contact: https://bare.test/contact\n'),
        '/sitemap.xml': (_q, r) => {
          r.writeHead(200, { 'content-type': 'text/html' });
          r.end('<!doctype html><title>Not a sitemap</title>');
        },
      },
    });
  });
  after(() => site.close());

  it('reports missing files with their status and an empty body', async () => {
    const ctx = ctxFor(site);
    const robots = await gatherRobotsTxt(ctx, new URL(site.url));
    assert.equal(robots.status, 404);
    assert.equal(robots.body, '');
    const llms = await gatherLlmsTxt(ctx, new URL(site.url));
    assert.equal(llms.status, 404);
    assert.equal(llms.parsed, null);
    assert.equal(llms.fullUrl, null, 'an HTML shell is not llms-full.txt');
  });

  it('falls back to /security.txt', async () => {
    const wk = await gatherWellKnown(ctxFor(site), new URL(site.url), null);
    assert.equal(wk.securityTxt.url, `${site.origin}/security.txt`);
    assert.equal(wk.securityTxt.status, 200);
    assert.equal(wk.openapi.status, 404);
  });

  it('says why /sitemap.xml is not a sitemap', async () => {
    const sitemap = await gatherSitemap(ctxFor(site), new URL(site.url), null);
    assert.equal(sitemap.found, false);
    assert.deepEqual(sitemap.sources, []);
    assert.equal(sitemap.urlCount, 0);
    assert.match(sitemap.errors.join('\n'), /sitemap\.xml: .*HTML/);
  });

  it('records an unreachable file as status null with the reason, never throws', async () => {
    const ctx = ctxFor(site, ''); // nothing allowlisted: every fetch is refused
    const hitsBefore = site.hits.length;
    const robots = await gatherRobotsTxt(ctx, new URL(site.url));
    assert.equal(robots.status, null);
    assert.match(robots.error ?? '', /^url_not_allowed/);
    const sitemap = await gatherSitemap(ctx, new URL(site.url), robots);
    assert.equal(sitemap.found, false);
    assert.match(sitemap.errors[0] ?? '', /url_not_allowed/);
    assert.equal(site.hits.length, hitsBefore, 'no request reached the server');
  });
});
