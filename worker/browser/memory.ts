import { readFile } from 'node:fs/promises';
import { BrowserError } from './chromium.ts';
import { groupPids } from './processes.ts';

// The browser memory budget (BROWSER_MEMORY_BUDGET_MB): hostile pages (an endless body, 50,000
// links, a gzip bomb) can drive Chromium to several GB. Every process group we start (the pool's
// browser, each Lighthouse child with its Chromium) is watched; their PSS is summed twice a second
// and, over the budget, every watched run is aborted with a `memory_budget_exceeded` error (its
// contexts closed, its Lighthouse group killed), which fails the scan with a clear error.

/**
 * PSS (proportional set size: shared pages split among their users) summed over the live members
 * of process groups, read off the event loop: smaps_rollup makes the kernel walk a process's page
 * tables (tens of milliseconds for a large renderer), and the guard asks twice a second during
 * full scans. Group membership comes from /proc/<pid>/stat, a few files per turn of the loop
 * (groupPids).
 */
export async function groupsPssBytesAsync(pgids: Iterable<number>): Promise<number> {
  const sizes = await Promise.all(
    (await groupPids(new Set(pgids))).map(async (pid) => {
      try {
        const m = /^Pss:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8'));
        return m ? Number(m[1]) * 1024 : 0;
      } catch {
        return 0; // exited while we looked
      }
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

export const memoryBudgetError = (budgetMb: number, usedMb: number) =>
  new BrowserError(
    'memory_budget_exceeded',
    `The page drove the browser to ${usedMb} MB, over the ${budgetMb} MB budget (BROWSER_MEMORY_BUDGET_MB); the render was stopped.`,
  );

interface Watch {
  pgid: number;
  abort: (err: BrowserError) => void;
}

export class MemoryGuard {
  private watches = new Set<Watch>();
  private timer: NodeJS.Timeout | undefined;
  /** Highest sum seen (bytes), for tests and metrics. */
  peakBytes = 0;
  trips = 0;
  /** Browsers ended because a session left them over the budget. */
  retirements = 0;

  constructor(
    readonly budgetMb: number,
    private readonly intervalMs = 500,
  ) {}

  /** Watches a process group while `abort` may still stop its work; returns the unwatch. */
  watch(pgid: number, abort: (err: BrowserError) => void): () => void {
    const w: Watch = { pgid, abort };
    this.watches.add(w);
    this.timer ??= setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
    return () => {
      this.watches.delete(w);
      if (this.watches.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** MB used by the process groups when over the budget, else null (a session's end asks this). */
  async overBudget(pgids: Iterable<number>): Promise<number | null> {
    const used = await groupsPssBytesAsync(pgids);
    this.peakBytes = Math.max(this.peakBytes, used);
    return used > this.budgetMb * 1024 * 1024 ? Math.round(used / 1024 / 1024) : null;
  }

  private checking = false;

  async check(): Promise<void> {
    if (this.watches.size === 0 || this.checking) return; // one read at a time
    this.checking = true;
    let used: number;
    try {
      used = await groupsPssBytesAsync([...this.watches].map((w) => w.pgid));
    } finally {
      this.checking = false;
    }
    this.peakBytes = Math.max(this.peakBytes, used);
    if (used <= this.budgetMb * 1024 * 1024) return;
    this.trips++;
    const err = memoryBudgetError(this.budgetMb, Math.round(used / 1024 / 1024));
    for (const w of [...this.watches]) {
      this.watches.delete(w);
      w.abort(err);
    }
  }
}
