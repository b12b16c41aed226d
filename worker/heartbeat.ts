import os from 'node:os';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../shared/db/database.ts';

export const HEARTBEAT_MS = 5_000;
/** A worker silent for this long is dead: its jobs are released for others. */
export const DEAD_AFTER_SECONDS = 30;

export class Heartbeat {
  private ids = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  // Beats still at the database: stop() waits for them, or one landing after its delete would
  // leave a row behind (a worker created just before shutdown beats once at once).
  private readonly beating = new Set<Promise<unknown>>();
  private readonly process = `${os.hostname()}:${process.pid}`;

  constructor(private readonly db: Kysely<Database>) {}

  async add(workerId: string): Promise<void> {
    this.ids.add(workerId);
    await this.beat();
    this.timer ??= setInterval(() => void this.beat().catch(() => {}), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** A worker that died stops beating at once (its row goes; if the database is away, it ages out). */
  async remove(workerId: string): Promise<void> {
    this.ids.delete(workerId);
    await this.db.deleteFrom('worker_heartbeats').where('worker_id', '=', workerId).execute();
  }

  get workerIds(): string[] {
    return [...this.ids];
  }

  private async beat(): Promise<void> {
    if (this.stopped || this.ids.size === 0) return;
    const rows = [...this.ids].map((worker_id) => ({ worker_id, process: this.process }));
    const write = this.db
      .insertInto('worker_heartbeats')
      .values(rows)
      .onConflict((oc) => oc.column('worker_id').doUpdateSet({ last_seen: sql`now()` }))
      .execute();
    this.beating.add(write);
    try {
      await write;
    } finally {
      this.beating.delete(write);
    }
  }

  /** A clean stop removes our rows, so nobody mistakes us for dead (or alive). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.beating]);
    if (this.ids.size === 0) return;
    await this.db
      .deleteFrom('worker_heartbeats')
      .where('worker_id', 'in', [...this.ids])
      .execute()
      .catch(() => {});
  }
}

/**
 * Releases jobs locked by workers that stopped beating (SIGKILL, OOM, lost machine), so they run
 * again within a minute instead of after graphile-worker's 4-hour lock timeout. Returns the ids freed.
 */
export async function reapDeadWorkers(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ locked_by: string }>`
    select distinct j.locked_by
      from graphile_worker.jobs j
     where j.locked_by is not null
       and j.locked_at < now() - make_interval(secs => ${DEAD_AFTER_SECONDS})
       and not exists (
         select 1 from worker_heartbeats h
          where h.worker_id = j.locked_by and h.last_seen > now() - make_interval(secs => ${DEAD_AFTER_SECONDS}))`.execute(
    db,
  );
  const ids = rows.map((r) => r.locked_by);
  if (ids.length) await sql`select graphile_worker.force_unlock_workers(${ids}::text[])`.execute(db);
  await db
    .deleteFrom('worker_heartbeats')
    .where('last_seen', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
  return ids;
}

/**
 * Frees the job a known-dead worker of ours still holds (graphile-worker's internal worker died
 * when it could not record the job's outcome, e.g. during a database outage). The attempt died
 * with the worker, not by the job's fault, so the job keeps one more attempt.
 */
export async function releaseDeadWorker(db: Kysely<Database>, workerId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`update graphile_worker._private_jobs set max_attempts = greatest(max_attempts, attempts + 1)
               where locked_by = ${workerId}`.execute(trx);
    await sql`select graphile_worker.force_unlock_workers(${[workerId]}::text[])`.execute(trx);
  });
}
