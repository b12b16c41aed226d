import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { BrowserProvider } from '../scan-engine/browser.ts';

// A job's contract lives with its capability: the task name graphile-worker knows it by and the
// zod schema of its payload. The API enqueues it (shared/jobs/queue.ts addJob, in the same
// transaction as its rows); a worker task (worker/tasks/) runs it by calling the capability.

export interface JobSpec<S extends z.ZodType = z.ZodType> {
  /** snake_case: the graphile-worker task identifier. */
  name: string;
  payload: S;
}

export const defineJob = <S extends z.ZodType>(name: string, payload: S): JobSpec<S> => ({ name, payload });

/** What a capability's job function gets from the process that runs it. */
export interface JobContext {
  db: Kysely<Database>;
  config: Config;
  log: Logger;
  /**
   * Aborted when the process is shutting down, the job's deadline passes, or the worker goes over
   * its memory budget (then with an AppError as the reason: a verdict on the job, not a shutdown).
   */
  signal: AbortSignal;
  /** The process's browser, for full-mode work; started on first use. */
  browser: BrowserProvider;
  /**
   * Adds facts (counts, ids, a score) to the job's one info line, written when it ends, instead
   * of a line of their own. Absent outside a worker.
   */
  note?: (fields: Record<string, unknown>) => void;
}

/** Where a job stands in its retries, for work that must decide whether to give up. */
export interface JobAttempt {
  attempts: number;
  maxAttempts: number;
}
