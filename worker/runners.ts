import { type Runner, type RunnerOptions, run } from 'graphile-worker';
import type { Logger } from '../shared/logger.ts';

// The graphile-worker runners of one worker process, kept running through database outages.
// graphile-worker's cron loop gives up at the first tick it cannot schedule (the database away at
// a minute boundary) and stops its whole runner with an error, jobs included; nobody restarts it.
// So the crontab runs in a runner of its own, without workers, beside the job runner, and any
// runner that fails is started again as soon as the database answers (a restarted cron then
// back-fills its `?fill=` lines and goes on at the next minute).

const MAX_RETRY_DELAY_MS = 5_000;

export class Runners {
  private stopped = false;
  private readonly live = new Set<Runner>();

  constructor(
    private readonly base: RunnerOptions,
    private readonly log: Logger,
  ) {}

  get stopping(): boolean {
    return this.stopped;
  }

  /**
   * Starts a runner (a failure here fails the caller, as at process start) and keeps it: when it
   * fails, it is logged and started again once the database answers.
   */
  async keep(name: string, options: RunnerOptions): Promise<void> {
    const first = await run({ ...this.base, ...options });
    if (this.stopped) await first.stop().catch(() => {});
    else void this.watch(name, options, first);
  }

  /**
   * A one-worker runner in place of an internal worker that died: started once `release` (freeing
   * what the dead worker held) has succeeded, both retried until the database answers.
   */
  async standIn(release: () => Promise<void>): Promise<boolean> {
    const done = await this.untilReachable('the worker replacement', async () => {
      await release();
      await this.keep('stand-in worker', { concurrency: 1, parsedCronItems: [] });
      return true;
    });
    return done === true;
  }

  private async watch(name: string, options: RunnerOptions, runner: Runner | undefined): Promise<void> {
    while (runner) {
      this.live.add(runner);
      const failure = await runner.promise.then(
        () => undefined,
        (err: unknown) => ({ err }),
      );
      this.live.delete(runner);
      if (this.stopped) return;
      if (!failure) {
        // Ended on graphile-worker's own decision (a breaking schema migration): not fought.
        this.log.error(`${name} ended; this process runs without it until restarted`);
        return;
      }
      this.log.error({ err: failure.err }, `${name} stopped; starting it again when the database answers`);
      runner = await this.untilReachable(`to start ${name}`, () => run({ ...this.base, ...options }));
      if (runner && this.stopped) return void (await runner.stop().catch(() => {}));
      if (runner) this.log.warn(`${name} running again`);
    }
  }

  /** attempt(), again with backoff while it fails; undefined once the process is stopping. */
  private async untilReachable<T>(what: string, attempt: () => Promise<T>): Promise<T | undefined> {
    for (let delay = 500; !this.stopped; delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS)) {
      try {
        return await attempt();
      } catch (err) {
        this.log.warn({ err }, `database not reachable yet; retrying ${what}`);
        await new Promise((r) => setTimeout(r, delay).unref());
      }
    }
    return undefined;
  }

  /** Stops taking jobs and scheduling; resolves when running jobs have finished. */
  stop(): Promise<void> {
    this.stopped = true;
    return Promise.all([...this.live].map((r) => r.stop().catch(() => {}))).then(() => {});
  }

  /** Settles once every runner has released its connections (its LISTEN client too). */
  settled(): Promise<void> {
    return Promise.all([...this.live].map((r) => r.promise.catch(() => {}))).then(() => {});
  }
}
