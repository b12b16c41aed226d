import { performance } from 'node:perf_hooks';

// The scheduler loop of every watched site. Due-ness is row state (each side's next_scan_due_at),
// so a run claims what is due now however many cron ticks were missed. Each side gives its claim:
// ONE statement that claims up to `batch` due rows (skipping those another fan-out holds), moves
// each to its next slot and enqueues their slot jobs (graphile_worker.add_jobs), so claim and
// enqueue commit together and a crash loses neither. This loop runs claims until one comes back
// short or the signal stops it (what is left stays due for the next run).

export interface FanoutOptions {
  /** Sites claimed (and jobs added) per statement. */
  batch: number;
  /** Tests drive the schedule with this; in production it is unset and the database clock decides. */
  asOf?: Date;
  /** Stops between batches. */
  signal?: AbortSignal;
}

/** What one claim statement did: due rows moved to their next slot, slot jobs enqueued. */
export interface ClaimCounts {
  claimed: number;
  added: number;
}

export interface FanoutResult {
  claimed: number;
  /** Jobs enqueued. */
  scheduled: number;
  batches: number;
  /** Time spent in the claiming statements. */
  busyMs: number;
}

export type Claim = (asOf: Date | null, batch: number) => Promise<ClaimCounts>;

export async function fanOut(claim: Claim, opts: FanoutOptions): Promise<FanoutResult> {
  const result: FanoutResult = { claimed: 0, scheduled: 0, batches: 0, busyMs: 0 };
  while (!opts.signal?.aborted) {
    const started = performance.now();
    const counts = await claim(opts.asOf ?? null, opts.batch);
    result.busyMs += performance.now() - started;
    if (counts.claimed === 0) break;
    result.batches++;
    result.claimed += counts.claimed;
    result.scheduled += counts.added;
    if (counts.claimed < opts.batch) break;
  }
  result.busyMs = Math.round(result.busyMs);
  return result;
}
