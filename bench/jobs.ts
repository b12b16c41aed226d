import { randomBytes } from 'node:crypto';
import { addJob } from '../shared/jobs/queue.ts';
import type { BenchContext, BenchRow } from './context.ts';
import { ms, summarise } from './stats.ts';

// Queue latency: from add_job() until the worker has started the job, seen the way the API sees
// completion (the `probe` task NOTIFYs its topic; we LISTEN). Sequential, so each job meets an idle
// worker; then a burst, which measures how fast one worker process drains a backlog of tiny jobs.

const SEQUENTIAL = 200;
const BURST = 500;

/** Resolves once we are subscribed to `topic`; `started` resolves at the moment its signal lands. */
export function subscribe(
  ctx: BenchContext,
  topic: string,
): { ready: Promise<void>; started: Promise<number> } {
  let first = true;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const started = ctx.events
    .waitFor(
      topic,
      async () => {
        // waitFor checks once before any signal (we are subscribed by then), then once per signal.
        if (first) {
          first = false;
          markReady();
          return undefined;
        }
        return performance.now();
      },
      30_000,
    )
    .then((t) => {
      if (t === undefined) throw new Error(`probe job for ${topic} did not start within 30 s`);
      return t;
    });
  return { ready, started };
}

export async function jobsSection(ctx: BenchContext): Promise<BenchRow[]> {
  const run = randomBytes(4).toString('hex');
  ctx.progress(`jobs: ${SEQUENTIAL} sequential probe jobs`);
  const latencies: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const topic = `bench:${run}:seq:${i}`;
    const { ready, started } = subscribe(ctx, topic);
    await ready;
    const t0 = performance.now();
    await addJob(ctx.db, 'probe', { topic });
    latencies.push((await started) - t0);
  }
  const seq = summarise(latencies);

  ctx.progress(`jobs: burst of ${BURST} probe jobs`);
  const subs = Array.from({ length: BURST }, (_, i) => subscribe(ctx, `bench:${run}:burst:${i}`));
  await Promise.all(subs.map((s) => s.ready));
  const t0 = performance.now();
  // Added concurrently over the bench's pool (10 connections), so the worker meets a growing backlog.
  await Promise.all(subs.map((_, i) => addJob(ctx.db, 'probe', { topic: `bench:${run}:burst:${i}` })));
  const last = Math.max(...(await Promise.all(subs.map((s) => s.started))));
  const drainSeconds = (last - t0) / 1000;

  return [
    {
      measurement: `job add -> start, ${SEQUENTIAL} sequential \`probe\` jobs`,
      result: `p50 ${ms(seq.p50)}, p99 ${ms(seq.p99)}`,
      notes: `mean ${ms(seq.mean)}, max ${ms(seq.max)}; WORKER_CONCURRENCY ${ctx.config.WORKER_CONCURRENCY}`,
    },
    {
      measurement: `burst of ${BURST} \`probe\` jobs, add -> last started`,
      result: `${(BURST / drainSeconds).toFixed(0)} jobs/s`,
      notes: `${ms(drainSeconds * 1000)} for all ${BURST}; one worker process`,
    },
  ];
}
