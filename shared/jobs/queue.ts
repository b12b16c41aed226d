import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import { jobsAdded } from '../metrics.ts';

// Writing rows and enqueueing their job happen in ONE transaction: graphile-worker's add_job is a
// SQL function, so the job exists exactly when the rows it works on do.

export interface AddJobOptions {
  jobKey?: string;
  jobKeyMode?: 'replace' | 'preserve_run_at' | 'unsafe_dedupe';
  maxAttempts?: number;
  runAt?: Date;
  priority?: number;
  queueName?: string;
}

export async function addJob(
  db: Kysely<Database> | Transaction<Database>,
  task: string,
  payload: Record<string, unknown>,
  opts: AddJobOptions = {},
): Promise<{ id: string }> {
  const { rows } = await sql<{ id: string }>`
    select id from graphile_worker.add_job(
      ${task},
      ${JSON.stringify(payload)}::json,
      queue_name => ${opts.queueName ?? null}::text,
      run_at => ${opts.runAt ?? null}::timestamptz,
      max_attempts => ${opts.maxAttempts ?? null}::int,
      job_key => ${opts.jobKey ?? null}::text,
      priority => ${opts.priority ?? null}::int,
      job_key_mode => ${opts.jobKeyMode ?? null}::text
    )`.execute(db);
  jobsAdded.inc({ task });
  return { id: String(rows[0]!.id) };
}

export async function queueDepth(
  db: Kysely<Database>,
): Promise<{ task: string; state: string; count: number }[]> {
  const { rows } = await sql<{ task: string; state: string; count: number }>`
    select task_identifier as task,
           case when locked_at is not null then 'running'
                when attempts >= max_attempts then 'failed'
                else 'waiting' end as state,
           count(*)::int as count
      from graphile_worker.jobs
     group by 1, 2`.execute(db);
  return rows;
}
