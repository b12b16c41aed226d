import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditFailure, type CrawlResult, crawlSite } from '../../../shared/audits/crawl.ts';
import { pageLinks } from '../../../shared/audits/crawl-refs.ts';
import { createUrlPolicy } from '../../../shared/net/url-policy.ts';
import { closeScoreThread, scoringThread } from '../../../shared/scan-engine/score-thread.ts';
import { startAuditSite } from '../../fixtures/sites/audit-site/serve.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

const crawl = (
  server: FixtureServer,
  opts: { maxPages?: number; path?: string; allow?: string; concurrency?: number; threaded?: boolean } = {},
) =>
  crawlSite({
    start: new URL(opts.path ?? '/', server.origin),
    policy: createUrlPolicy(opts.allow ?? `127.0.0.1:${server.port}`),
    maxPages: opts.maxPages ?? 25,
    budgetMs: 60_000,
    concurrency: opts.concurrency ?? 3,
    signal: AbortSignal.timeout(60_000),
    cpuThread: opts.threaded ? scoringThread : undefined,
  });

const paths = (r: CrawlResult) => r.pages.map((p) => new URL(p.url).pathname);

describe('pageLinks', () => {
  it('keeps same-origin page links, resolved against <base>, without fragments or files', () => {
    const markup = `<base href="https://a.test/docs/">
      <a href="intro.html#top">x</a> <a href="/about">x</a> <a href="#only-fragment">x</a>
      <a href="guide.pdf">x</a> <a href="mailto:me@a.test">x</a> <a href="https://b.test/">x</a>
      <a href="?page=2">x</a> <area href="/map" alt="m"> <a href="javascript:void(0)">x</a>`;
    assert.deepEqual(
      pageLinks({ html: markup, finalUrl: 'https://a.test/docs/index.html' }, 'https://a.test'),
      [
        'https://a.test/docs/intro.html',
        'https://a.test/about',
        'https://a.test/docs/?page=2',
        'https://a.test/map',
      ],
    );
  });
});

describe('crawlSite on the audit fixture site', () => {
  let site: FixtureServer;
  let result: CrawlResult;
  before(async () => {
    site = await startAuditSite();
    result = await crawl(site);
  });
  after(() => site.close());

  it('finds pages through links and the sitemap, start page first', () => {
    assert.equal(paths(result)[0], '/');
    for (const p of [
      '/about.html',
      '/services.html',
      '/pricing.html',
      '/contact.html',
      '/gallery.html',
      '/blog/',
    ]) {
      assert.ok(paths(result).includes(p), p);
    }
    const legacy = result.pages.find((p) => p.url.endsWith('/legacy.html'));
    assert.equal(legacy?.source, 'sitemap', 'linked from nowhere, listed in the sitemap');
    assert.equal(result.sitemap && 'found' in result.sitemap && result.sitemap.found, true);
  });

  it('honours robots.txt for SightlineBot: disallowed URLs are listed and never requested', () => {
    assert.ok(result.skipped.disallowedByRobots.some((u) => u.endsWith('/private/members.html')));
    assert.ok(!site.hits.some((h) => h.url.startsWith('/private/')), 'nothing under /private/ was fetched');
    assert.equal(site.hits.filter((h) => h.url === '/robots.txt').length, 1, 'robots.txt read once');
  });

  it('records an error page as a broken link with the page that linked it, and skips files and other sites', () => {
    const broken = result.pages.find((p) => p.url.endsWith('/old-offers.html'));
    assert.equal(broken?.Page.status, 404);
    assert.equal(broken?.linkedFrom, `${site.origin}/`);
    assert.ok(
      !site.hits.some((h) => h.url.includes('brochure.pdf')),
      'a link to a PDF is not fetched as a page',
    );
    assert.equal(new Set(paths(result)).size, result.pages.length, 'each page once');
    assert.ok(result.pages.every((p) => p.url.startsWith(site.origin)));
  });

  it('stops at the page bound and says how much was left', async () => {
    const small = await crawl(site, { maxPages: 3 });
    assert.equal(small.pages.length, 3);
    assert.ok(small.skipped.notVisited > 0);
  });
});

describe('crawlSite refusals and failures', () => {
  let server: FixtureServer;
  let other: FixtureServer;
  let robots = '';
  let robotsStatus = 200;
  before(async () => {
    other = await startFixtureServer({
      routes: {
        '/': (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>other</title>'),
      },
    });
    const html = (body: string) => (_q: unknown, res: import('node:http').ServerResponse) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>t</title>${body}`);
    server = await startFixtureServer({
      routes: {
        '/robots.txt': (_q, res) => res.writeHead(robotsStatus, { 'content-type': 'text/plain' }).end(robots),
        '/': html('<a href="/away">away</a> <a href="/a">a</a>'),
        '/a': html('a'),
        '/away': (_q, res) => res.writeHead(302, { location: `${other.origin}/` }).end(),
        '/down': (_q, res) => res.writeHead(503).end(),
        '/nothing': (_q, res) => res.writeHead(404).end(),
      },
    });
  });
  after(async () => {
    await server.close();
    await other.close();
  });

  const failure = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof AuditFailure, String(err));
      return err;
    }
    assert.fail('expected an AuditFailure');
  };

  it('a start page robots.txt disallows is refused for good, without fetching it', async () => {
    robots = 'User-agent: SightlineBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n';
    const hitsBefore = server.hits.length;
    const err = await failure(crawl(server));
    assert.equal(err.code, 'robots_disallowed');
    assert.equal(err.permanent, true);
    assert.deepEqual(
      server.hits.slice(hitsBefore).map((h) => h.url),
      ['/robots.txt'],
    );
  });

  it('an unreadable robots.txt (5xx) means wait and retry, not crawl', async () => {
    robots = '';
    robotsStatus = 500;
    const hitsBefore = server.hits.length;
    const err = await failure(crawl(server));
    assert.equal(err.code, 'robots_unreachable');
    assert.equal(err.permanent, false);
    assert.deepEqual(
      server.hits.slice(hitsBefore).map((h) => h.url),
      ['/robots.txt'],
    );
    robotsStatus = 404; // no robots.txt at all: everything allowed
  });

  it('a start page that answers 503 is retried; one that answers 404 is not', async () => {
    const down = await failure(crawl(server, { path: '/down' }));
    assert.equal(down.code, 'site_error');
    assert.equal(down.permanent, false);
    const missing = await failure(crawl(server, { path: '/nothing' }));
    assert.equal(missing.permanent, true);
  });

  it('a link that redirects to another origin is not audited; Crawl-delay is honoured (capped)', async () => {
    robots = 'User-agent: *\nCrawl-delay: 1\n';
    robotsStatus = 200;
    const r = await crawl(server, { allow: `127.0.0.1:${server.port},127.0.0.1:${other.port}` });
    assert.equal(r.skipped.offSite, 1);
    assert.deepEqual(paths(r), ['/', '/a']);
    assert.equal(r.crawlDelaySeconds, 1);
    robots = 'User-agent: SightlineBot\nCrawl-delay: 60\n';
    assert.equal((await crawl(server, { maxPages: 1 })).crawlDelaySeconds, 5);
  });
});

describe('crawlSite parsing in the scoring thread', () => {
  after(() => closeScoreThread());

  it('audits a page under two URLs once, by body or by canonical URL, in either thread', async () => {
    const page =
      (body: string, head = '') =>
      (_q: unknown, res: import('node:http').ServerResponse) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<!doctype html><title>t</title>${head}${body}`);
    const home = '<a href="/index.html">home</a> <a href="/b">b</a> <a href="/b?ref=nav">b again</a>';
    const site = await startFixtureServer({
      routes: {
        '/robots.txt': (_q, res) => res.writeHead(404).end(),
        '/': page(home),
        '/index.html': page(home), // the same body
        // Another body under a tracking parameter: one page by its canonical URL alone.
        '/b': (q, res) =>
          page(
            q.url?.includes('ref=') ? '<p>b, tracked</p>' : '<p>b</p>',
            '<link rel="canonical" href="/b">',
          )(q, res),
      },
    });
    try {
      for (const threaded of [false, true]) {
        const r = await crawl(site, { concurrency: 1, threaded });
        assert.deepEqual(paths(r), ['/', '/b'], `threaded: ${threaded}`);
        assert.deepEqual(
          r.skipped.duplicates.map((d) => [
            new URL(d.url).pathname + new URL(d.url).search,
            new URL(d.sameAs).pathname,
          ]),
          [
            ['/index.html', '/'],
            ['/b?ref=nav', '/b'],
          ],
          `threaded: ${threaded}`,
        );
      }
    } finally {
      await site.close();
    }
  });

  it("parses pages in a worker's scoring thread with the same result as in this thread", async () => {
    const site = await startAuditSite();
    try {
      const here = await crawl(site, { concurrency: 1 });
      const threaded = await crawl(site, { concurrency: 1, threaded: true });
      assert.ok(here.pages.length > 5, `${here.pages.length} pages`);
      assert.deepEqual(paths(threaded), paths(here));
      assert.deepEqual(threaded.skipped, here.skipped);
      assert.deepEqual(
        threaded.pages.map((p) => [p.depth, p.source, p.linkedFrom]),
        here.pages.map((p) => [p.depth, p.source, p.linkedFrom]),
      );
    } finally {
      await site.close();
    }
  });
});
