import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';

// A rolling hour per bucket, counted in Postgres (rate_limit_take, sql/017) so every API instance
// shares it and concurrent calls for one key stay exact; each call costs the same work however
// many hits the bucket holds (a running total per bucket, the calls of each second in one row,
// expired seconds deleted once). The calls of second S count until S + 1 s + 1 hour, the moment
// X-RateLimit-Reset names.

export const WINDOW = '1 hour';

export interface RateState {
  allowed: boolean;
  limit: number;
  remaining: number;
  reset: number; // epoch seconds when the oldest counted call leaves the window
}

export async function takeToken(db: Kysely<Database>, bucket: string, limit: number): Promise<RateState> {
  const { rows } = await sql<{ allowed: boolean; remaining: number; reset_at: Date }>`
    select * from rate_limit_take(${bucket}, ${limit}::int, ${WINDOW}::interval)`.execute(db);
  return toRateState(rows[0]!, limit);
}

export async function peekToken(db: Kysely<Database>, bucket: string, limit: number): Promise<RateState> {
  const { rows } = await sql<{ allowed: boolean; remaining: number; reset_at: Date }>`
    select * from rate_limit_peek(${bucket}, ${limit}::int, ${WINDOW}::interval)`.execute(db);
  return toRateState(rows[0]!, limit);
}

export function toRateState(
  row: { allowed: boolean; remaining: number; reset_at: Date },
  limit: number,
): RateState {
  return {
    allowed: row.allowed,
    limit,
    remaining: Math.max(0, row.remaining),
    reset: Math.ceil(new Date(row.reset_at).getTime() / 1000),
  };
}

/**
 * Deletes the seconds of hits older than the window (with five minutes of slack) and drops emptied buckets: run
 * by the prune_rate_limits cron task, one bucket at a time under the bucket's own lock, in the
 * lock order batched admissions use (sql/016, sql/017).
 */
export async function pruneHits(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ deleted: number | null }>`
    select rate_limit_sweep_all(${WINDOW}::interval + interval '5 minutes') as deleted`.execute(db);
  return rows[0]?.deleted ?? 0;
}
