import client from 'prom-client';
import type { AppError } from '../shared/errors.ts';
import { workerMemoryBudget } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { registry } from '../shared/metrics.ts';

// The worker process's own memory budget (WORKER_MEMORY_BUDGET_MB), beside Chromium's
// (browser/memory.ts): its resident set is read four times a second while jobs run and, over the
// budget, every running job is stopped with a `worker_memory_budget` error (a scan is then stored
// failed with that code). The jobs' data goes with them, so the memory can be given back; the
// budget trips again only after the process has been seen under it, so memory the runtime has
// not returned yet does not stop the jobs that start next.

const CHECK_EVERY_MS = 250;

const trips = new client.Counter({
  name: 'sightline_worker_memory_budget_trips_total',
  help: 'Times this worker process went over WORKER_MEMORY_BUDGET_MB and stopped its running jobs',
  registers: [registry],
});

export class MemoryBudget {
  private readonly watches = new Set<(err: AppError) => void>();
  private timer: NodeJS.Timeout | undefined;
  private armed = true;

  constructor(
    readonly budgetMb: number,
    private readonly log: Logger,
  ) {}

  /** Watches a running job until the returned function is called; `stop` aborts it when over. */
  watch(stop: (err: AppError) => void): () => void {
    this.watches.add(stop);
    this.timer ??= setInterval(() => this.check(), CHECK_EVERY_MS);
    this.timer.unref();
    return () => {
      this.watches.delete(stop);
      if (this.watches.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private check(): void {
    const usedMb = Math.round(process.memoryUsage.rss() / 1024 / 1024);
    if (usedMb <= this.budgetMb) {
      this.armed = true;
      return;
    }
    if (!this.armed) return;
    this.armed = false;
    trips.inc();
    this.log.warn(
      { rssMb: usedMb, budgetMb: this.budgetMb, jobs: this.watches.size },
      'worker memory budget exceeded: stopping the running jobs',
    );
    const err = workerMemoryBudget(usedMb, this.budgetMb);
    for (const stop of [...this.watches]) {
      this.watches.delete(stop);
      stop(err);
    }
  }
}
