import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { addJob } from '../shared/jobs/queue.ts';
import { runScan } from '../shared/scans/gather-and-score.ts';
import { requireChromium } from '../worker/browser/chromium.ts';
import { LIGHTHOUSE_CATEGORIES } from '../worker/browser/lighthouse.ts';
import { browserResources, closeBrowserResources } from '../worker/browser/resources.ts';
import type { BenchContext, BenchRow } from './context.ts';
import { subscribe } from './jobs.ts';
import { startBenchSite } from './scans.ts';
import { goal, limit, median, ms, sec, summarise } from './stats.ts';

// Issue 17's full-scan rows: the `sightline scan --mode full` process against the bare Lighthouse
// CLI on the same page (wall and CPU, children included, from /usr/bin/time's rusage), our
// Lighthouse child process against Lighthouse's own run time (lhr.timing.total), and what a full
// scan does to the worker's event loop: its delay (monitorEventLoopDelay) and the add -> start
// latency of `probe` jobs added while it runs, in this process, where the bench's worker runs.

const BIN = fileURLToPath(new URL('../bin/sightline.js', import.meta.url));
const LIGHTHOUSE_CLI = fileURLToPath(new URL('../node_modules/lighthouse/cli/index.js', import.meta.url));
const ROUNDS = 2;

interface Usage {
  wall: number; // s
  cpu: number; // s, user + system of the process and every child it waited for
}

/** Runs a command under /usr/bin/time (GNU time: rusage of the process and its reaped children). */
async function timed(args: string[], env: NodeJS.ProcessEnv): Promise<Usage> {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-time-')), 'time.txt');
  try {
    await promisify(execFile)('/usr/bin/time', ['-o', out, '-f', '%e %U %S', ...args], {
      env,
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [wall, user, sys] = fs.readFileSync(out, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
    return { wall: wall!, cpu: user! + sys! };
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

async function cliVsLighthouse(ctx: BenchContext, url: string, allow: string): Promise<BenchRow[]> {
  if (!fs.existsSync('/usr/bin/time')) return [];
  const chromium = requireChromium(ctx.config).path;
  const ours: Usage[] = [];
  const bare: Usage[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    ctx.progress(`fullscan: sightline scan --mode full vs lighthouse CLI, round ${round} of ${ROUNDS}`);
    ours.push(
      await timed([process.execPath, BIN, 'scan', '--mode', 'full', url, '--allow-host', allow, '--json'], {
        ...process.env,
        LOG_LEVEL: 'silent',
      }),
    );
    bare.push(
      await timed(
        [
          process.execPath,
          LIGHTHOUSE_CLI,
          url,
          '--output=json',
          `--output-path=${path.join(os.tmpdir(), `sightline-bench-lh-${process.pid}.json`)}`,
          '--quiet',
          `--only-categories=${LIGHTHOUSE_CATEGORIES.join(',')}`,
          '--chrome-flags=--headless --no-sandbox --disable-gpu --disable-dev-shm-usage',
        ],
        { ...process.env, CHROME_PATH: chromium },
      ),
    );
  }
  fs.rmSync(path.join(os.tmpdir(), `sightline-bench-lh-${process.pid}.json`), { force: true });
  const wall = median(ours.map((u) => u.wall)) / median(bare.map((u) => u.wall));
  const cpu = median(ours.map((u) => u.cpu)) / median(bare.map((u) => u.cpu));
  const runs = (us: Usage[]) => us.map((u) => `${sec(u.wall)} wall / ${sec(u.cpu)} CPU`).join(', ');
  return [
    {
      measurement: '`sightline scan --mode full` process (CLI start, quick + render + Lighthouse, exit)',
      result: `${sec(median(ours.map((u) => u.wall)))} wall, ${sec(median(ours.map((u) => u.cpu)))} CPU`,
      notes: `median of ${ROUNDS}: ${runs(ours)}; children included`,
    },
    {
      measurement: 'bare `lighthouse` CLI, same page',
      result: `${sec(median(bare.map((u) => u.wall)))} wall, ${sec(median(bare.map((u) => u.cpu)))} CPU`,
      notes: `median of ${ROUNDS}: ${runs(bare)}`,
    },
    {
      measurement: '`sightline scan --mode full` / bare Lighthouse CLI',
      result: `wall ${goal(wall, 1.0, 'the CLI', 'atMost')}`,
      notes: `CPU ${goal(cpu, 1.1, 'the CLI', 'atMost')}`,
    },
  ];
}

async function lighthouseChild(ctx: BenchContext, url: string, config: BenchSiteConfig): Promise<BenchRow[]> {
  // The worker's runner: a warm child driving the pool's browser. Its first run starts both
  // (reported in the notes); the rows measure the runs a worker makes after that.
  const runner = browserResources(config.config).lighthouse;
  ctx.progress('fullscan: Lighthouse child process, first run (starts the child and the browser)');
  const c0 = performance.now();
  const cold = await runner.run(url, { timeoutMs: 240_000 });
  const coldMs = performance.now() - c0;
  const ratios: number[] = [];
  const notes: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    ctx.progress(`fullscan: Lighthouse child process, run ${round} of ${ROUNDS}`);
    const t0 = performance.now();
    const lhr = await runner.run(url, { timeoutMs: 240_000 });
    const ours = performance.now() - t0;
    const own = lhr.timing?.total;
    if (!own) return [];
    ratios.push(ours / own);
    notes.push(`${sec(ours / 1000)} vs ${sec(own / 1000)}`);
  }
  return [
    {
      measurement:
        "Lighthouse child process (runner.run, warm) / Lighthouse's own run time (lhr.timing.total)",
      result: goal(median(ratios), 1.1, "Lighthouse's own time", 'atMost'),
      notes: `runs: ${notes.join(', ')}; first run of the worker (child and browser start) ${sec(coldMs / 1000)} vs ${sec((cold.timing?.total ?? 0) / 1000)}`,
    },
  ];
}

/** A full scan in this process while the delay monitor runs and probe jobs are added one by one. */
async function eventLoopDuringFullScan(
  ctx: BenchContext,
  url: string,
  config: BenchSiteConfig,
): Promise<BenchRow[]> {
  ctx.progress('fullscan: event-loop delay and job pickup during a full scan');
  // Warm: the pool's browser is launched by a first scan, as in a worker that has scanned before.
  await runScan(new URL(url), 'full', {
    policy: config.policy,
    browser: () => browserResources(config.config),
    signal: AbortSignal.timeout(config.config.SCAN_FULL_DEADLINE_MS),
  });
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let scanning = true;
  const scan = runScan(new URL(url), 'full', {
    policy: config.policy,
    browser: () => browserResources(config.config),
    signal: AbortSignal.timeout(config.config.SCAN_FULL_DEADLINE_MS),
  }).finally(() => {
    scanning = false;
  });
  const latencies: number[] = [];
  const run = randomBytes(4).toString('hex');
  for (let i = 0; scanning; i++) {
    const topic = `bench:${run}:during:${i}`;
    // A probe that does not start within 30 s is left out, as before (subscribe rejects).
    const { ready, started: startedOrFail } = subscribe(ctx, topic);
    const started = startedOrFail.catch(() => undefined);
    await ready;
    const t0 = performance.now();
    await addJob(ctx.db, 'probe', { topic });
    const t = await started;
    if (t !== undefined) latencies.push(t - t0);
    await new Promise((r) => setTimeout(r, 50));
  }
  await scan;
  histogram.disable();
  const maxDelay = histogram.max / 1e6;
  const s = summarise(latencies);
  return [
    {
      measurement: 'worker event-loop delay during a full scan (monitorEventLoopDelay, this process)',
      result: `max ${limit(maxDelay, 50, 'ms', (v) => v.toFixed(1))}`,
      // Node's histogram records whole timer intervals: a loop that never stalls reads ~10 ms.
      notes: `p99 ${ms(histogram.percentile(99) / 1e6)}, mean ${ms(histogram.mean / 1e6)} (each sample includes the 10 ms timer interval)`,
    },
    {
      measurement: `job add -> start while a full scan runs (${latencies.length} \`probe\` jobs, one at a time)`,
      result: `p99 ${limit(s.p99, 50, 'ms', (v) => v.toFixed(1))}`,
      notes: `p50 ${ms(s.p50)}, max ${ms(s.max)}`,
    },
  ];
}

type BenchSiteConfig = Awaited<ReturnType<typeof startBenchSite>>;

export async function fullScanSection(ctx: BenchContext): Promise<BenchRow[]> {
  // Served from another process, as a real site is: the event-loop rows measure the worker alone.
  const site = await startBenchSite(ctx, { separateProcess: true });
  const allow = `127.0.0.1:${site.server.port}`;
  try {
    return [
      ...(await cliVsLighthouse(ctx, site.fullPage, allow)),
      ...(await lighthouseChild(ctx, site.fullPage, site)),
      ...(await eventLoopDuringFullScan(ctx, site.fullPage, site)),
    ];
  } finally {
    await closeBrowserResources();
    await site.close();
  }
}
