import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as cheerio from 'cheerio';
import pLimit from 'p-limit';
import type { Config } from '../shared/config.ts';
import { safeFetch } from '../shared/net/safe-fetch.ts';
import { createUrlPolicy, type UrlPolicy } from '../shared/net/url-policy.ts';
import { type ArtifactSet, isGatherError } from '../shared/scan-engine/artifacts.ts';
import { moduleThread, SCORING_THREAD_LIMITS } from '../shared/scan-engine/score-thread.ts';
import { runScan } from '../shared/scans/gather-and-score.ts';
import { type FixtureServer, startFixtureServer } from '../test/helpers/fixture-server.ts';
import { requireChromium } from '../worker/browser/chromium.ts';
import { LIGHTHOUSE_CATEGORIES } from '../worker/browser/lighthouse.ts';
import { browserResources, closeBrowserResources } from '../worker/browser/resources.ts';
import type { BenchContext, BenchRow } from './context.ts';
import { goal, limit, median, ms, sec, summarise } from './stats.ts';

// The scan engine's cost against bare baselines measured in the same run: quick scans against a
// plain fetch + cheerio parse of the same pages, a full scan against the Lighthouse CLI on the
// same page, and the API's end-to-end latency for quick scans (API -> job -> worker -> answer).
// The sites are the corpus static sites served from this process.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const FALLBACK = fileURLToPath(new URL('../test/fixtures/sites', import.meta.url));
const LIGHTHOUSE_CLI = fileURLToPath(new URL('../node_modules/lighthouse/cli/index.js', import.meta.url));

// Twenty pages across the five corpus sites: skeleton, inaccessible and repaired pages, a 190 KB
// documentation page, a landing page whose CDN assets are unreachable.
const CORPUS_PAGES = [
  'h5bp-boilerplate-dist/index.html',
  'h5bp-boilerplate-dist/404.html',
  'w3c-bad-demo/index.html',
  ...['home', 'news', 'tickets', 'survey', 'template'].flatMap((p) => [
    `w3c-bad-demo/before/${p}.html`,
    `w3c-bad-demo/after/${p}.html`,
  ]),
  'mdn-a11y-assessment/start/index.html',
  'mdn-a11y-assessment/finished/index.html',
  'mdn-a11y-assessment/html-good-bad-pairs/bad-form.html',
  'mdn-a11y-assessment/html-good-bad-pairs/good-form.html',
  'underscorejs-org/index.html',
  'underscorejs-org/docs/modules/chunk.html',
  'startbootstrap-landing-page/index.html',
];
const CORPUS_FULL_PAGE = 'w3c-bad-demo/before/home.html';
const MAX_PAGES = 20;

export interface BenchSite {
  server: FixtureServer;
  /** Absolute page URLs. */
  pages: string[];
  /** The page the full-scan measurements use. */
  fullPage: string;
  /** Where the pages come from, for the notes. */
  source: string;
  /** Opens exactly this server's port. */
  policy: UrlPolicy;
  /** The bench config with the allowlist narrowed to this server (for browserResources). */
  config: Config;
  close(): Promise<void>;
}

function htmlFiles(root: string, dir = ''): string[] {
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory()) return htmlFiles(root, rel);
      return e.name.endsWith('.html') ? [rel] : [];
    });
}

/** Serves the corpus static sites (or the project's fixture sites when the corpus is absent). */
/**
 * Serves the bench's pages. `separateProcess` serves them from a child process (no request log:
 * `server.hits` stays empty), so that serving the site costs the measured process nothing.
 */
export async function startBenchSite(
  ctx: BenchContext,
  opts: { separateProcess?: boolean } = {},
): Promise<BenchSite> {
  const corpusRoot = path.join(CORPUS, 'static-sites');
  const corpus = fs.existsSync(corpusRoot);
  const root = corpus ? corpusRoot : FALLBACK;
  const rel = corpus
    ? CORPUS_PAGES.filter((p) => fs.existsSync(path.join(root, p)))
    : htmlFiles(root).slice(0, MAX_PAGES);
  const fullRel = corpus ? CORPUS_FULL_PAGE : (rel.find((p) => p === 'quick-site/index.html') ?? rel[0]);
  if (!rel.length || !fullRel) throw new Error(`no HTML pages under ${root}`);
  const server = opts.separateProcess
    ? await serveFromChildProcess(root)
    : await startFixtureServer({ root });
  const allow = `127.0.0.1:${server.port}`;
  return {
    server,
    pages: rel.map((p) => `${server.origin}/${p}`),
    fullPage: `${server.origin}/${fullRel}`,
    source: corpus
      ? `corpus static-sites (${rel.length} pages over ${new Set(rel.map((p) => p.split('/')[0])).size} sites)`
      : `CORPUS ABSENT (${corpusRoot}): project fixture sites instead, ${rel.length} pages`,
    policy: createUrlPolicy(allow),
    config: { ...ctx.config, SCAN_ALLOW_HOSTS: allow },
    close: () => server.close(),
  };
}

const SERVE_FOLDER = fileURLToPath(new URL('./serve-folder.ts', import.meta.url));

async function serveFromChildProcess(root: string): Promise<FixtureServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVE_FOLDER, root], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`site server exited (${code}) before listening`)));
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  child.removeAllListeners('exit');
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/`,
    origin,
    port,
    hits: [],
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/**
 * Seconds per round of scoring every set, in a new thread with the scoring thread's heap limits
 * (score-thread.ts), as a worker scores. Five untimed rounds first: V8 compiles and optimises the
 * checks over the first hundred-odd pages (the first round ~3x, the next few ~1.3x the settled
 * time), which a worker's long-lived scoring thread pays once per process. Each round parses each
 * page anew (the document cache holds fewer pages than a round), which a scan's scoring step
 * finds done by its gatherers: the parse is counted here, not left out.
 */
async function scoringInThread(artifacts: ArtifactSet[]): Promise<number[]> {
  const thread = moduleThread(SCORING_THREAD, {
    workerData: { artifacts, warmUpRounds: 5, rounds: 5 },
    resourceLimits: SCORING_THREAD_LIMITS,
  });
  try {
    return await new Promise<number[]>((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`the scoring timer exited (${code}) before answering`)));
    });
  } finally {
    await thread.terminate();
  }
}
const SCORING_THREAD = new URL('./scoring-thread.ts', import.meta.url);

const elapsed = (t0: number) => (performance.now() - t0) / 1000;

/** Seconds to run `fn` over every page with `concurrency` at a time; throws when a page failed. */
async function pass(
  pages: string[],
  concurrency: number,
  fn: (url: string) => Promise<boolean>,
): Promise<number> {
  const limit = pLimit(concurrency);
  const t0 = performance.now();
  const ok = await Promise.all(pages.map((u) => limit(() => fn(u))));
  const seconds = elapsed(t0);
  const failed = pages.filter((_, i) => !ok[i]);
  if (failed.length) throw new Error(`${failed.length} page(s) failed, e.g. ${failed[0]}`);
  return seconds;
}

/** The baseline: what any scanner must do at least, fetch the page and parse it. */
async function bareFetchParse(site: BenchSite, url: string): Promise<boolean> {
  const res = await safeFetch(url, { policy: site.policy });
  const $ = cheerio.load(res.body.toString('utf8'));
  return res.status === 200 && $('html').length > 0;
}

async function quickScan(site: BenchSite, url: string, keep?: ArtifactSet[]): Promise<boolean> {
  const out = await runScan(new URL(url), 'quick', {
    policy: site.policy,
    signal: AbortSignal.timeout(60_000),
  });
  keep?.push(out.artifacts);
  return !isGatherError(out.artifacts.Page) && !!out.results['site-audit'];
}

async function quickThroughput(ctx: BenchContext, site: BenchSite): Promise<BenchRow[]> {
  const { pages } = site;
  const bare = (u: string) => bareFetchParse(site, u);
  const scan = (u: string) => quickScan(site, u);
  ctx.progress(`scans: warm-up over ${pages.length} pages`);
  await pass(pages, 1, bare);
  const hitsBefore = site.server.hits.length;
  const artifacts: ArtifactSet[] = [];
  // Every request each page's scan makes (URL and user agent), for the like-for-like baseline.
  const requested = new Map<string, { url: string; userAgent: string }[]>();
  await pass(pages, 1, async (u) => {
    const from = site.server.hits.length;
    const ok = await quickScan(site, u, artifacts);
    requested.set(
      u,
      site.server.hits.slice(from).map((h) => ({
        url: new URL(h.url, site.server.origin).href,
        userAgent: String(h.headers['user-agent'] ?? ''),
      })),
    );
    return ok;
  });
  const requestsPerScan = (site.server.hits.length - hitsBefore) / pages.length;
  // Issue 17's baseline: a bare fetch (4 at a time, as the scan may) of exactly the requests the
  // scan made for that page, each HTML answer parsed with cheerio.
  const bareSet = async (u: string) => {
    const fourAtATime = pLimit(4);
    const oks = await Promise.all(
      (requested.get(u) ?? []).map(({ url, userAgent }) =>
        fourAtATime(async () => {
          const res = await safeFetch(url, { policy: site.policy, userAgent }).catch(() => null);
          if (res && /html/.test(res.headers['content-type'] ?? '')) cheerio.load(res.body.toString('utf8'));
          return res !== null;
        }),
      ),
    );
    return oks.every(Boolean);
  };

  // Alternating rounds, best of each kind: background load on a shared machine then hurts the
  // ratio less than one back-to-back pair would.
  const best = {
    bare1: Infinity,
    scan1: Infinity,
    bare4: Infinity,
    scan4: Infinity,
    set: Infinity,
  };
  for (let round = 1; round <= 3; round++) {
    ctx.progress(`scans: quick throughput, round ${round} of 3`);
    best.set = Math.min(best.set, await pass(pages, 1, bareSet));
    best.bare1 = Math.min(best.bare1, await pass(pages, 1, bare));
    best.scan1 = Math.min(best.scan1, await pass(pages, 1, scan));
    best.bare4 = Math.min(best.bare4, await pass(pages, 4, bare));
    best.scan4 = Math.min(best.scan4, await pass(pages, 4, scan));
  }
  // The CPU part of a scan alone: every check and model over the gathered artifacts.
  ctx.progress('scans: scoring in a thread set up as the scoring thread is');
  const scoringRounds = await scoringInThread(artifacts);
  const scoring = Math.min(...scoringRounds);
  site.server.hits.length = 0;
  const rate = (seconds: number) => `${(pages.length / seconds).toFixed(1)} pages/s`;
  const per = (seconds: number) => `${ms((1000 * seconds) / pages.length)} per page`;
  const ratio = (b: number, s: number) => `${(s / b).toFixed(1)}x the time of the bare baseline`;
  return [
    {
      measurement: `bare safe-fetch + cheerio parse, ${pages.length} pages, sequential`,
      result: rate(best.bare1),
      notes: `${per(best.bare1)}; ${site.source}`,
    },
    {
      measurement: 'quick scan (runScan quick), same pages, sequential',
      result: rate(best.scan1).replace('pages', 'scans'),
      notes:
        `${per(best.scan1)}, of which scoring ${ms((1000 * scoring) / pages.length)} ` +
        `(median of 5 rounds ${ms((1000 * median(scoringRounds)) / pages.length)}); ` +
        `${ratio(best.bare1, best.scan1)}; ${requestsPerScan.toFixed(1)} requests per scan`,
    },
    {
      measurement: `bare safe-fetch of the same requests each scan made (${requestsPerScan.toFixed(1)} per page, 4 at a time), HTML parsed`,
      result: per(best.set),
      notes: 'the like-for-like baseline of issue 17',
    },
    {
      measurement: 'quick scan / bare fetch + parse of the same requests',
      result: goal(best.scan1 / best.set, 3, 'the bare requests', 'atMost'),
      notes: `scoring ${limit((1000 * scoring) / pages.length, 10, 'ms per page', (v) => v.toFixed(1))}`,
    },
    {
      measurement: 'bare safe-fetch + cheerio parse, concurrency 4',
      result: rate(best.bare4),
      notes: per(best.bare4),
    },
    {
      measurement: 'quick scan (runScan quick), concurrency 4',
      result: rate(best.scan4).replace('pages', 'scans'),
      notes: ratio(best.bare4, best.scan4),
    },
  ];
}

async function fullScan(site: BenchSite): Promise<number> {
  const t0 = performance.now();
  const out = await runScan(new URL(site.fullPage), 'full', {
    policy: site.policy,
    browser: () => browserResources(site.config),
    signal: AbortSignal.timeout(site.config.SCAN_FULL_DEADLINE_MS),
  });
  const seconds = elapsed(t0);
  // A full scan whose browser half failed would be a quick scan in disguise.
  for (const name of ['Page', 'Rendered', 'Lighthouse'] as const) {
    const a = out.artifacts[name];
    if (!a || isGatherError(a))
      throw new Error(`full scan: ${name} failed: ${JSON.stringify(a).slice(0, 300)}`);
  }
  return seconds;
}

/** The Lighthouse CLI as anyone would run it, with its own Chromium, on the same page. */
async function lighthouseCli(url: string, config: Config): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-lh-'));
  const report = path.join(dir, 'report.json');
  try {
    const t0 = performance.now();
    await promisify(execFile)(
      process.execPath,
      [
        LIGHTHOUSE_CLI,
        url,
        '--output=json',
        `--output-path=${report}`,
        '--quiet',
        `--only-categories=${LIGHTHOUSE_CATEGORIES.join(',')}`,
        '--chrome-flags=--headless --no-sandbox --disable-gpu --disable-dev-shm-usage',
      ],
      { env: { ...process.env, CHROME_PATH: requireChromium(config).path }, timeout: 240_000 },
    );
    const seconds = elapsed(t0);
    const lhr = JSON.parse(fs.readFileSync(report, 'utf8')) as {
      runtimeError?: { code: string };
      categories?: Record<string, { score: number | null }>;
    };
    if (lhr.runtimeError || LIGHTHOUSE_CATEGORIES.some((c) => lhr.categories?.[c]?.score == null))
      throw new Error(`lighthouse CLI: incomplete report (${lhr.runtimeError?.code ?? 'missing scores'})`);
    return seconds;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function fullVsLighthouse(ctx: BenchContext, site: BenchSite): Promise<BenchRow[]> {
  const page = new URL(site.fullPage).pathname;
  try {
    // The first full scan of a process also launches the pool's browser; a worker pays that once.
    ctx.progress(`scans: cold full scan of ${page}`);
    const cold = await fullScan(site);
    const ours: number[] = [];
    const cli: number[] = [];
    for (let round = 1; round <= 2; round++) {
      ctx.progress(`scans: full scan vs lighthouse CLI, round ${round} of 2`);
      ours.push(await fullScan(site));
      cli.push(await lighthouseCli(site.fullPage, site.config));
    }
    const ratio = median(ours) / median(cli);
    const runs = (xs: number[]) => xs.map(sec).join(', ');
    return [
      {
        measurement: `full scan (runScan full: quick + browser render + Lighthouse) of ${page}`,
        result: `${sec(median(ours))} (median of 2)`,
        notes: `runs ${runs(ours)}; cold first scan (browser launch) ${sec(cold)}`,
      },
      {
        measurement: 'bare `lighthouse` CLI on the same page',
        result: `${sec(median(cli))} (median of 2)`,
        notes: `runs ${runs(cli)}; its own Chromium per run, same four categories`,
      },
      {
        measurement: 'full scan / bare Lighthouse CLI',
        result: `${ratio.toFixed(2)}x`,
        notes: `target at most 1.3: ${ratio <= 1.3 ? 'met' : 'NOT met'}`,
      },
    ];
  } finally {
    await closeBrowserResources();
  }
}

const API_SCANS = 100;

async function apiQuickScans(ctx: BenchContext, site: BenchSite): Promise<BenchRow[]> {
  const key = await ctx.newKey('A', 'agent', 100_000_000);
  const run = randomBytes(4).toString('hex');
  // A query string per request makes every URL distinct, so no answer comes from the scan cache.
  const call = async (i: number) => {
    const target = `${site.pages[i % site.pages.length]}?bench=${run}-${i}`;
    const t0 = performance.now();
    const res = await fetch(`${ctx.api.url}/api/v1/scan?mode=quick&url=${encodeURIComponent(target)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t0 };
  };
  ctx.progress(`scans: ${API_SCANS} quick scans through the API`);
  for (let i = 0; i < 3; i++) await call(-1 - i); // warm-up, discarded
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  for (let i = 0; i < API_SCANS; i++) {
    const r = await call(i);
    if (r.status === 200) latencies.push(r.ms);
    else statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  }
  const s = summarise(latencies);
  const failed = [...statuses].map(([status, n]) => `${n} answered ${status}`).join(', ');
  return [
    {
      measurement: `GET /api/v1/scan?mode=quick, ${API_SCANS} sequential requests for distinct URLs`,
      result: `p50 ${ms(s.p50)}, p99 ${ms(s.p99)}`,
      notes: [
        `mean ${ms(s.mean)}, max ${ms(s.max)}`,
        `WORKER_CONCURRENCY ${ctx.config.WORKER_CONCURRENCY}`,
        failed,
      ]
        .filter(Boolean)
        .join('; '),
    },
  ];
}

export async function scansSection(ctx: BenchContext): Promise<BenchRow[]> {
  const site = await startBenchSite(ctx);
  try {
    return [
      ...(await quickThroughput(ctx, site)),
      ...(await fullVsLighthouse(ctx, site)),
      ...(await apiQuickScans(ctx, site)),
    ];
  } finally {
    await site.close();
  }
}
