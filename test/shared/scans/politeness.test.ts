import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { crawlSite } from '../../../shared/audits/crawl.ts';
import { HostSlots } from '../../../shared/net/host-slots.ts';
import { createUrlPolicy } from '../../../shared/net/url-policy.ts';
import { runScan } from '../../../shared/scans/gather-and-score.ts';

// Per-site politeness (issue 17): a quick scan starts every gatherer and the AI-agent fetches at
// once, and an audit crawls many pages, but neither keeps more than 4 requests in flight to one
// site. The server below answers each request after a short pause and counts how many are open at
// the same moment; the scan must reach 4 (it does work in parallel) and never exceed it. It also
// counts requests per path: an audit's pages share their resources, fetched once per audit.

const PAGES = 6;
const page = (i: number) => `<!doctype html><html lang="en"><head><title>Page ${i}</title>
<meta name="description" content="Page ${i} of a small test site.">
<link rel="stylesheet" href="/a.css"><link rel="stylesheet" href="/b.css"><script src="/app.js"></script>
</head><body><main><h1>Page ${i}</h1><p>Text of page ${i}.</p>
<img src="/one.png" alt="one"><img src="/two.png" alt="two"><img src="/three.png" alt="three">
${Array.from({ length: PAGES }, (_, j) => `<a href="/p${j}.html">page ${j}</a>`).join(' ')}
</main></body></html>`;

describe('at most 4 requests in flight to one site; an audit fetches each resource once', () => {
  let server: http.Server;
  let origin: string;
  let open = 0;
  let peak = 0;
  let served = 0;
  const hits = new Map<string, number>();

  before(async () => {
    server = http.createServer((req, res) => {
      open++;
      peak = Math.max(peak, open);
      res.once('close', () => {
        open--;
      });
      setTimeout(() => {
        served++;
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        hits.set(path, (hits.get(path) ?? 0) + 1);
        if (path === '/' || /^\/p\d+\.html$/.test(path)) {
          const i = path === '/' ? 0 : Number(path.slice(2, -5));
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(i));
        } else if (path.endsWith('.css')) res.writeHead(200, { 'content-type': 'text/css' }).end('body{}');
        else if (path.endsWith('.js')) res.writeHead(200, { 'content-type': 'text/javascript' }).end('1');
        else if (path === '/robots.txt')
          res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }, 25);
    });
    server.listen(0, '127.0.0.1', 5); // a small listen backlog, as on a small server
    await new Promise((r) => server.once('listening', r));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const reset = () => {
    peak = 0;
    served = 0;
    hits.clear();
  };

  it('a quick scan: every gatherer and agent fetch, 4 at a time', async () => {
    reset();
    const out = await runScan(new URL(`${origin}/`), 'quick', {
      policy: createUrlPolicy('127.0.0.1'),
      signal: AbortSignal.timeout(60_000),
    });
    assert.ok(out.results, 'scored');
    assert.ok(served > 8, `the scan made its requests (${served})`);
    assert.equal(peak, 4, `most requests open at once: ${peak}`);
  });

  it('an audit crawl: pages and their resources, 4 at a time', async () => {
    reset();
    const result = await crawlSite({
      start: new URL(`${origin}/`),
      policy: createUrlPolicy('127.0.0.1'),
      signal: AbortSignal.timeout(120_000),
      maxPages: PAGES,
      budgetMs: 120_000,
      concurrency: 8, // more pages at once than the site may take: the slots still hold it to 4
    });
    assert.ok(result.pages.length >= PAGES, `crawled ${result.pages.length} pages`);
    assert.ok(peak >= 2 && peak <= 4, `most requests open at once: ${peak}`);
    // Every page references the same stylesheets, script and images: one fetch each per audit.
    for (const resource of ['/a.css', '/b.css', '/app.js', '/one.png', '/two.png', '/three.png'])
      assert.equal(hits.get(resource), 1, `${resource} fetched ${hits.get(resource)} times`);
  });

  it('HostSlots hands a freed slot to the first waiter, per host', async () => {
    const slots = new HostSlots(2);
    const a = await slots.acquire('x:80');
    const b = await slots.acquire('x:80');
    const other = await slots.acquire('y:80'); // another host has its own slots
    let third = false;
    const c = slots.acquire('x:80').then((release) => {
      third = true;
      return release;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(third, false, 'a third request to x waits');
    a();
    const releaseC = await c;
    assert.equal(third, true);
    assert.equal(slots.peak, 2);
    const aborted = new AbortController();
    const waiting = slots.acquire('x:80', aborted.signal);
    aborted.abort();
    await assert.rejects(waiting, /aborted/);
    for (const r of [b, releaseC, other]) r();
  });
});
