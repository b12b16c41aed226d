import type { JobHelpers, Task } from 'graphile-worker';
import { type Kysely, sql } from 'kysely';
import type { z } from 'zod';
import type { Config } from '../shared/config.ts';
import type { Database } from '../shared/db/database.ts';
import type { JobContext } from '../shared/jobs/job.ts';
import type { Logger } from '../shared/logger.ts';
import { jobDuration, jobsTotal } from '../shared/metrics.ts';
import type { BrowserProvider } from '../shared/scan-engine/browser.ts';
import type { MemoryBudget } from './memory-budget.ts';

/** A capability's JobContext plus graphile-worker's helpers for this job. */
export interface TaskContext extends JobContext {
  helpers: JobHelpers;
}

export interface TaskDef<S extends z.ZodType = z.ZodType> {
  name: string; // snake_case, the graphile-worker task identifier
  payload: S;
  /** Hard deadline for one run; the task's signal aborts when it passes. */
  timeoutMs?: number;
  run: (payload: z.output<S>, ctx: TaskContext) => Promise<void>;
}

export function defineTask<S extends z.ZodType>(def: TaskDef<S>): TaskDef {
  return def as unknown as TaskDef;
}

export class InvalidPayloadError extends Error {}

/** Wraps a task: payload validation (payloads are unknown until checked), deadline, metrics, logs. */
export function toGraphileTask(
  def: TaskDef,
  deps: {
    db: Kysely<Database>;
    config: Config;
    log: Logger;
    shutdown: AbortSignal;
    browser: BrowserProvider;
    /** The process's memory budget (none for a task run alone, as in a test). */
    memory?: MemoryBudget;
  },
): Task {
  return async (rawPayload, helpers) => {
    const log = deps.log.child({ task: def.name, jobId: helpers.job.id, attempt: helpers.job.attempts });
    const parsed = def.payload.safeParse(rawPayload ?? {});
    if (!parsed.success) {
      jobsTotal.inc({ task: def.name, outcome: 'invalid_payload' });
      log.error(
        { outcome: 'invalid_payload', issues: parsed.error.issues },
        'invalid payload: failing the job permanently',
      );
      // Retrying cannot fix a payload: make this attempt the last, so graphile-worker keeps the
      // job as permanently failed (attempts = max_attempts) with the error, instead of retrying.
      await sql`update graphile_worker._private_jobs set max_attempts = attempts where id = ${helpers.job.id}::bigint`
        .execute(deps.db)
        .catch((err) => log.warn({ err }, 'could not mark the job as permanently failed'));
      throw new InvalidPayloadError(`invalid payload for ${def.name}: ${parsed.error.message}`);
    }
    // Aborted by a shutdown, the deadline, or the worker's memory budget (its reason an AppError).
    const overBudget = new AbortController();
    const unwatch = deps.memory?.watch((err) => overBudget.abort(err));
    const signals = [deps.shutdown, overBudget.signal];
    if (def.timeoutMs) signals.push(AbortSignal.timeout(def.timeoutMs));
    const signal = AbortSignal.any(signals);
    const end = jobDuration.startTimer({ task: def.name });
    const notes: Record<string, unknown> = {};
    log.debug('job started');
    // One line per job at info (task, outcome, duration and the task's notes); a failure at warn.
    try {
      await def.run(parsed.data, {
        db: deps.db,
        config: deps.config,
        log,
        helpers,
        signal,
        browser: deps.browser,
        note: (fields) => Object.assign(notes, fields),
      });
      jobsTotal.inc({ task: def.name, outcome: 'success' });
      log.info({ ...notes, outcome: 'success', ms: Math.round(end() * 1000) }, 'job done');
    } catch (err) {
      const ms = Math.round(end() * 1000);
      if (deps.shutdown.aborted) {
        // Cut short by a shutdown, not by its own fault: make sure it keeps an attempt to run again.
        await sql`update graphile_worker._private_jobs set max_attempts = greatest(max_attempts, attempts + 1) where id = ${helpers.job.id}::bigint`
          .execute(deps.db)
          .catch((e) => log.warn({ err: e }, 'could not keep an attempt for the interrupted job'));
      }
      jobsTotal.inc({ task: def.name, outcome: 'failure' });
      log.warn({ ...notes, outcome: 'failure', ms, err }, 'job failed');
      throw err;
    } finally {
      unwatch?.();
    }
  };
}
