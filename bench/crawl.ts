import http from 'node:http';
import { crawlSite } from '../shared/audits/crawl.ts';
import { MAX_REQUESTS_PER_SITE } from '../shared/net/host-slots.ts';
import { createUrlPolicy } from '../shared/net/url-policy.ts';
import { runScan } from '../shared/scans/gather-and-score.ts';
import type { BenchContext, BenchRow } from './context.ts';
import { atMost, ms } from './stats.ts';

// Issue 17's politeness rows, against a server of this section: a small one (listen backlog 5,
// each answer after 10 ms) that counts how many requests are open at once, quick-scanned 20 times;
// then an audit crawl of a generated 160-page site whose pages share their stylesheets, script and
// images, with the fetches of each resource counted.

const QUICK_SCANS = 20;
const CRAWL_PAGES = 160;

interface CountingServer {
  origin: string;
  peak: number;
  hits: Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

const pageHtml = (i: number) => `<!doctype html><html lang="en"><head><title>Page ${i}</title>
<meta name="description" content="Page ${i} of the bench site."><meta name="viewport" content="width=device-width">
<link rel="stylesheet" href="/site.css"><link rel="stylesheet" href="/theme.css"><script src="/app.js" defer></script>
</head><body><main><h1>Page ${i}</h1><p>Text of page ${i}, long enough to read as content.</p>
<img src="/logo.png" alt="logo"><img src="/hero.jpg" alt="hero">
${Array.from({ length: 8 }, (_, k) => `<a href="/p${(i * 8 + k + 1) % CRAWL_PAGES}.html">page ${(i * 8 + k + 1) % CRAWL_PAGES}</a>`).join(' ')}
</main></body></html>`;

async function countingServer(backlog: number, delayMs: number): Promise<CountingServer> {
  let open = 0;
  const state = { peak: 0, hits: new Map<string, number>() };
  const server = http.createServer((req, res) => {
    open++;
    state.peak = Math.max(state.peak, open);
    res.once('close', () => {
      open--;
    });
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
    setTimeout(() => {
      const m = /^\/p(\d+)\.html$/.exec(path);
      if (path === '/' || m)
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(pageHtml(m ? Number(m[1]) : 0));
      else if (path.endsWith('.css'))
        res.writeHead(200, { 'content-type': 'text/css' }).end('body{margin:0}');
      else if (path.endsWith('.js')) res.writeHead(200, { 'content-type': 'text/javascript' }).end('void 0');
      else if (path === '/robots.txt')
        res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }, delayMs);
  });
  server.listen(0, '127.0.0.1', backlog);
  await new Promise((r) => server.once('listening', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    get peak() {
      return state.peak;
    },
    hits: state.hits,
    reset() {
      state.peak = 0;
      state.hits.clear();
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export async function crawlSection(ctx: BenchContext): Promise<BenchRow[]> {
  const policy = createUrlPolicy('127.0.0.1');
  const small = await countingServer(5, 10);
  try {
    ctx.progress(`crawl: ${QUICK_SCANS} quick scans of a server with a listen backlog of 5`);
    const t0 = performance.now();
    for (let i = 0; i < QUICK_SCANS; i++)
      await runScan(new URL(`${small.origin}/p${i}.html`), 'quick', {
        policy,
        signal: AbortSignal.timeout(60_000),
      });
    const perScan = (performance.now() - t0) / QUICK_SCANS;
    const quickPeak = small.peak;
    const requests = [...small.hits.values()].reduce((a, b) => a + b, 0) / QUICK_SCANS;

    small.reset();
    ctx.progress(`crawl: audit crawl of a ${CRAWL_PAGES}-page site`);
    const t1 = performance.now();
    const crawl = await crawlSite({
      start: new URL(`${small.origin}/`),
      policy,
      signal: AbortSignal.timeout(600_000),
      maxPages: CRAWL_PAGES,
      budgetMs: 600_000,
      concurrency: 3,
    });
    const crawlMs = performance.now() - t1;
    const resources = ['/site.css', '/theme.css', '/app.js', '/logo.png', '/hero.jpg'];
    const most = Math.max(...resources.map((r) => small.hits.get(r) ?? 0));
    return [
      {
        measurement: `quick scan of a small server (listen backlog 5, 10 ms per answer), ${QUICK_SCANS} scans`,
        result: `peak in flight ${atMost(quickPeak, MAX_REQUESTS_PER_SITE, 'requests')}`,
        notes: `${ms(perScan)} per scan; ${requests.toFixed(1)} requests per scan`,
      },
      {
        measurement: `audit crawl, ${crawl.pages.length} pages sharing 5 resources`,
        result: `most fetches of one resource: ${atMost(most, 1, 'fetches')}`,
        notes: `${ms(crawlMs / Math.max(1, crawl.pages.length))} per page; peak in flight ${small.peak}`,
      },
    ];
  } finally {
    await small.close();
  }
}
