import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { isGatherError } from '../shared/scan-engine/artifacts.ts';
import { runScan } from '../shared/scans/gather-and-score.ts';
import { lighthouseStats } from '../worker/browser/lighthouse.ts';
import {
  countChromiumProcesses,
  environHas,
  groupMembers,
  listProcesses,
  type ProcessEntry,
} from '../worker/browser/processes.ts';
import { browserResources, closeBrowserResources } from '../worker/browser/resources.ts';
import type { BenchContext, BenchRow } from './context.ts';
import { startBenchSite } from './scans.ts';
import { summarise } from './stats.ts';

// 100 sequential full scans in one process through the worker's path (runScan with the
// process-wide browser pool and Lighthouse runner): memory must stay flat and, once the browser
// resources are closed, no Chromium may be left. Not in the default set: `npm run bench -- soak`
// (SOAK_SCANS=N to change the count; it takes 10-30 s per scan).
//
// Every process we start is found again by an environment marker that Chromium and its helpers
// inherit (the crash handler too, whose command line names no profile), and the Lighthouse and
// Playwright profiles land in a folder of our own, which must be empty at the end.

const WARMUP = 5;
const EVERY = 10;
const MARKER_VAR = 'SIGHTLINE_BENCH_RUN';

const MB = 2 ** 20;
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

/** The garbage collector, so heap samples hold live objects only. */
function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

const isChromium = (p: ProcessEntry) =>
  p.state !== 'Z' && /chrom(e|ium)/i.test(p.cmdline.split(' ')[0] ?? '');

/**
 * Live Chromium processes of ours. Chromium starts its helpers with a cleaned environment, so a
 * process counts when it carries the marker (browsers, crash handlers), names our profile folder,
 * or belongs to a process group where one of those was ever seen (`groups` remembers them, so
 * helpers orphaned by a dead browser are still found).
 */
function ourChromium(marker: string, tmp: string, groups: Set<number>): number[] {
  const mine = listProcesses().filter(
    (p) =>
      isChromium(p) &&
      (environHas(p.pid, `${MARKER_VAR}=${marker}`) || p.cmdline.includes(tmp) || groups.has(p.pgid)),
  );
  for (const p of mine) groups.add(p.pgid);
  return mine.map((p) => p.pid);
}

/** Proportional set size of a process (its fair share of shared pages), in bytes. */
function pss(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface Sample {
  scan: number;
  rss: number;
  heap: number;
  /** The pool's browser: every process of its group. */
  browser: number;
  chromium: number;
}

/** Least-squares slope of `value` per scan. */
function slope(samples: Sample[], value: (s: Sample) => number): number {
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.scan, 0) / n;
  const my = samples.reduce((a, s) => a + value(s), 0) / n;
  const sxy = samples.reduce((a, s) => a + (s.scan - mx) * (value(s) - my), 0);
  const sxx = samples.reduce((a, s) => a + (s.scan - mx) ** 2, 0);
  return sxx ? sxy / sxx : 0;
}

export async function soakSection(ctx: BenchContext): Promise<BenchRow[]> {
  const total = Number(process.env.SOAK_SCANS ?? 100);
  if (!Number.isInteger(total) || total <= WARMUP)
    throw new Error(`SOAK_SCANS must be an integer above ${WARMUP}`);
  const marker = randomBytes(6).toString('hex');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-soak-'));
  const saved = { TMPDIR: process.env.TMPDIR, [MARKER_VAR]: process.env[MARKER_VAR] };
  // Read at each launch: Playwright's and our Lighthouse profiles go under tmp, and every process
  // started from now on carries the marker.
  process.env.TMPDIR = tmp;
  process.env[MARKER_VAR] = marker;
  const site = await startBenchSite(ctx);
  const gc = exposeGc();
  const lh = { runs: lighthouseStats.runs, killed: lighthouseStats.killed };
  try {
    const samples: Sample[] = [];
    const seconds: number[] = [];
    const failures: string[] = [];
    const partial = { Rendered: 0, Lighthouse: 0 };
    const browserPids = new Set<number>();
    const groups = new Set<number>();
    let aliveMax = 0;
    const sample = (scan: number, chromium: number) => {
      gc();
      const pool = browserResources(site.config).pool;
      for (const pid of pool.stats.pids) browserPids.add(pid);
      const mem = process.memoryUsage();
      const s: Sample = {
        scan,
        rss: mem.rss,
        heap: mem.heapUsed,
        browser: pool.stats.pids.flatMap((pid) => groupMembers(pid)).reduce((a, p) => a + pss(p.pid), 0),
        chromium,
      };
      samples.push(s);
      ctx.progress(
        `soak: after ${scan} scans: rss ${mb(s.rss)}, heap ${mb(s.heap)}, browser ${mb(s.browser)}, ` +
          `${s.chromium} chromium processes, ${failures.length} failed`,
      );
    };

    ctx.progress(`soak: ${total} sequential full scans over ${site.pages.length} pages (${site.source})`);
    for (let i = 1; i <= total; i++) {
      const url = site.pages[(i - 1) % site.pages.length]!;
      const t0 = performance.now();
      try {
        const out = await runScan(new URL(url), 'full', {
          policy: site.policy,
          browser: () => browserResources(site.config),
          signal: AbortSignal.timeout(site.config.SCAN_FULL_DEADLINE_MS),
        });
        if (isGatherError(out.artifacts.Page))
          failures.push(`#${i} ${url}: page ${out.artifacts.Page.error.message}`);
        for (const name of ['Rendered', 'Lighthouse'] as const) {
          const a = out.artifacts[name];
          if (!a || isGatherError(a)) {
            partial[name]++;
            ctx.progress(`soak: #${i} ${url}: ${name} failed: ${a ? a.error.message : 'missing'}`);
          }
        }
      } catch (err) {
        failures.push(`#${i} ${url}: ${(err as Error).message}`);
      }
      seconds.push((performance.now() - t0) / 1000);
      site.server.hits.length = 0; // the fixture server's request log would grow with every scan
      // Every scan, so the process groups of everything we started are remembered.
      const alive = ourChromium(marker, tmp, groups).length;
      aliveMax = Math.max(aliveMax, alive);
      if ((i >= WARMUP && (i - WARMUP) % EVERY === 0) || i === total) sample(i, alive);
    }

    await closeBrowserResources();
    const atClose = ourChromium(marker, tmp, groups).length;
    // Debian's crash handler exits by itself once its browser is gone: give it a few seconds.
    const until = Date.now() + 10_000;
    let left = atClose;
    while (left > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      left = ourChromium(marker, tmp, groups).length;
    }
    const byProfile = countChromiumProcesses(tmp);
    const browserGroupsLeft = [...browserPids].filter((pid) => groupMembers(pid).length > 0).length;
    const profilesLeft = fs.readdirSync(tmp).filter((n) => /^(sightline-lh-|playwright)/.test(n));

    const first = samples[0]!;
    const last = samples.at(-1)!;
    const max = (f: (s: Sample) => number) => Math.max(...samples.map(f));
    const per10 = (f: (s: Sample) => number) =>
      `${((EVERY * slope(samples, f)) / MB).toFixed(2)} MB per ${EVERY} scans`;
    const t = summarise(seconds);
    const row = (measurement: string, f: (s: Sample) => number): BenchRow => ({
      measurement,
      result: `${mb(f(first))} -> ${mb(f(last))}`,
      notes: `max ${mb(max(f))}; slope ${per10(f)} (${samples.length} samples, after scan ${first.scan} then every ${EVERY})`,
    });
    return [
      {
        measurement: `${total} sequential full scans, ${site.pages.length} pages in turn`,
        result: `${total - failures.length} done, ${failures.length} failed`,
        notes: [
          `per scan p50 ${t.p50.toFixed(1)} s, p99 ${t.p99.toFixed(1)} s, max ${t.max.toFixed(1)} s`,
          `total ${(seconds.reduce((a, b) => a + b, 0) / 60).toFixed(1)} min`,
          `browser render failed ${partial.Rendered}, Lighthouse failed ${partial.Lighthouse}`,
          ...failures.slice(0, 3),
        ].join('; '),
      },
      {
        measurement: 'Lighthouse runs (one child process each)',
        result: String(lighthouseStats.runs - lh.runs),
        notes: `${lighthouseStats.killed - lh.killed} killed by their deadline`,
      },
      row('worker process RSS (after GC)', (s) => s.rss),
      row('worker process V8 heap used (after GC)', (s) => s.heap),
      row("pool's Chromium, PSS of its process group", (s) => s.browser),
      {
        measurement: 'Chromium processes alive between scans',
        result: `${first.chromium} -> ${last.chromium}`,
        notes: `max ${aliveMax} over all ${total} scans; the pool's browser, its helpers and crash handlers`,
      },
      {
        measurement: 'Chromium processes left after closeBrowserResources()',
        result: String(left),
        notes:
          `${atClose} at the moment close() returned; by profile folder ${byProfile}; ` +
          `browser process groups alive ${browserGroupsLeft}; profile folders left ${profilesLeft.length}`,
      },
    ];
  } finally {
    await closeBrowserResources();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await site.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
