import { type Kysely, sql } from 'kysely';
import { Batcher } from '../db/batcher.ts';
import type { Database } from '../db/database.ts';
import { isPgError } from '../db/errors.ts';
import { poolOf } from '../db/pool.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';
import type { Plan } from '../db/tables/subscriptions.ts';

// The rate limiter: a true rolling hour per bucket, counted in Postgres so every process shares
// it and concurrent calls stay exact (sql/functions/rate-limits.sql holds the rules). Buckets are
// named by what they count: `key:<id>` for a key's hourly calls, `ip:<door>:<address>` for
// keyless doors, `<door>:key:<id>` for doors with a budget of their own (scan polling).
//
// Every counted call is one statement: a keyed call shares its statement with the keyed calls
// in flight beside it (a small batch), any other take is a statement of its own. Informational
// answers (/status, /openapi.json, the free scan page) are not counted and read nothing: they show
// the caller's bucket as this process last counted it (lastCounted).

export const WINDOW = '1 hour';

export interface RateState {
  allowed: boolean;
  limit: number;
  remaining: number;
  reset: number; // epoch seconds when the oldest counted call leaves the window
}

/** Counts one call in `bucket`: refused (allowed false, nothing counted) once `limit` is reached. */
export async function takeToken(db: Kysely<Database>, bucket: string, limit: number): Promise<RateState> {
  const { rows } = await sql<{ allowed: boolean; remaining: number; reset_at: Date }>`
    select * from rate_limit_take(${bucket}, ${limit}::int, ${WINDOW}::interval)`.execute(db);
  return remember(bucket, toRateState(rows[0]!, limit));
}

/** The bucket's state without counting (one read-only statement). */
export async function peekToken(db: Kysely<Database>, bucket: string, limit: number): Promise<RateState> {
  const { rows } = await sql<{ allowed: boolean; remaining: number; reset_at: Date }>`
    select * from rate_limit_peek(${bucket}, ${limit}::int, ${WINDOW}::interval)`.execute(db);
  return remember(bucket, toRateState(rows[0]!, limit));
}

function toRateState(row: { allowed: boolean; remaining: number; reset_at: Date }, limit: number): RateState {
  return {
    allowed: row.allowed,
    limit,
    remaining: Math.max(0, row.remaining),
    reset: Math.ceil(new Date(row.reset_at).getTime() / 1000),
  };
}

/**
 * Deletes the calls older than the window (with five minutes of slack) and drops emptied buckets:
 * the prune_rate_limits cron task. Returns the number of calls deleted.
 */
export async function pruneHits(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ deleted: number | null }>`
    select rate_limit_sweep_all(${WINDOW}::interval + interval '5 minutes') as deleted`.execute(db);
  return rows[0]?.deleted ?? 0;
}

// ---- What this process last counted, for informational answers ----

const LAST_COUNTED_MAX = 10_000;
const lastCountedStates = new Map<string, RateState>();

function remember(bucket: string, state: RateState): RateState {
  lastCountedStates.delete(bucket); // re-inserted last: the oldest entry is the first turned out
  if (lastCountedStates.size >= LAST_COUNTED_MAX) {
    lastCountedStates.delete(lastCountedStates.keys().next().value as string);
  }
  lastCountedStates.set(bucket, state);
  return state;
}

/**
 * The bucket as this process last counted or peeked it, with no database work: a bucket it never
 * saw, or whose counted calls have all left the window since, shows its whole limit. Other
 * processes' calls show from this process's next count of the bucket on.
 */
export function lastCounted(bucket: string, limit: number): RateState {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const seen = lastCountedStates.get(bucket);
  if (seen && seen.limit === limit && seen.reset > nowSeconds)
    return { ...seen, allowed: seen.remaining > 0 };
  return { allowed: true, limit, remaining: limit, reset: nowSeconds + 3601 };
}

// ---- Keyed calls: authentication and count in one statement ----

/** One row per distinct known key of a batch (admit_keys_counted). */
export interface KeyRow {
  /** The key's position (1-based) among the batch's distinct keys. */
  ord: number;
  id: string;
  account_id: string;
  variant: Variant;
  tier: ApiTier;
  rate_limit: number;
  revoked: boolean;
  last_used_at: Date | null;
  /** The bucket's count before this batch's take and how many of the key's calls it granted (null when revoked). */
  count_before: number | null;
  granted: number | null;
  /** When the oldest counted second leaves the window (epoch seconds; null when revoked). */
  reset_epoch: number | null;
  email: string;
  account_tier: ApiTier;
  beta_flags: Record<string, boolean>;
  notification_preferences: Record<string, unknown>;
  account_created_at: Date;
  plan: Plan | null;
}

/** A keyed call's answer: its key's row (undefined for an unknown key) and, for a live key, the call's own state. */
export interface KeyedTake {
  row: KeyRow;
  rate?: RateState;
}

/** Keyed calls in one statement at most. */
const KEYED_BATCH_MAX = 50;
const keyedBatchers = new WeakMap<Kysely<Database>, Batcher<Buffer, KeyedTake | undefined>>();

/**
 * Looks the key up by its SHA-256 and, when it is live, counts one call in its hourly bucket
 * (its own limit, else its tier's from `tierLimits`): one statement, shared with the keyed calls
 * this process has in flight at the same moment.
 */
export function takeKeyed(
  db: Kysely<Database>,
  keyHash: Buffer,
  tierLimits: Record<ApiTier, number>,
): Promise<KeyedTake | undefined> {
  let batcher = keyedBatchers.get(db);
  if (!batcher) {
    batcher = new Batcher((hashes) => takeKeyedBatch(db, hashes, tierLimits), { maxBatch: KEYED_BATCH_MAX });
    keyedBatchers.set(db, batcher);
  }
  return batcher.load(keyHash);
}

/**
 * A batch's calls grouped by key: the statement counts each key once with its number of calls,
 * and the key's calls are answered in arrival order (the i-th is granted while i <= granted).
 */
async function takeKeyedBatch(
  db: Kysely<Database>,
  hashes: Buffer[],
  tierLimits: Record<ApiTier, number>,
): Promise<(KeyedTake | undefined)[]> {
  const keys = new Map<string, { hash: Buffer; calls: number[] }>(); // in order of first call
  hashes.forEach((hash, i) => {
    const id = hash.toString('hex');
    const seen = keys.get(id);
    if (seen) seen.calls.push(i);
    else keys.set(id, { hash, calls: [i] });
  });
  const distinct = [...keys.values()];
  const { rows } = await admitKeysCounted(db, [
    distinct.map((k) => k.hash),
    distinct.map((k) => k.calls.length),
    JSON.stringify(tierLimits),
    WINDOW,
  ]);
  const out: (KeyedTake | undefined)[] = new Array(hashes.length);
  for (const row of rows) {
    const { calls } = distinct[row.ord - 1]!;
    calls.forEach((call, c) => {
      out[call] = { row, rate: row.revoked ? undefined : keyedState(row, c) };
    });
    if (!row.revoked) remember(`key:${row.id}`, keyedState(row, calls.length - 1));
  }
  return out;
}

const ADMIT_KEYS = 'select * from admit_keys_counted($1::bytea[], $2::int[], $3::jsonb, $4::interval)';
let preparedAdmitKeys = true;

/**
 * The keyed statement, prepared once per connection (parsed and planned once). A migration that
 * changes the function's result columns while this process runs makes the prepared plan refuse
 * to run (0A000, "cached plan must not change result type"): the process then sends it unprepared.
 */
async function admitKeysCounted(db: Kysely<Database>, values: unknown[]): Promise<{ rows: KeyRow[] }> {
  const pool = poolOf(db);
  if (!pool)
    return sql<KeyRow>`select * from admit_keys_counted(${values[0]}::bytea[], ${values[1]}::int[], ${values[2]}::jsonb, ${values[3]}::interval)`.execute(
      db,
    );
  if (preparedAdmitKeys) {
    try {
      return await pool.query<KeyRow>({ name: 'admit_keys_counted', text: ADMIT_KEYS, values });
    } catch (err) {
      if (!(isPgError(err) && err.code === '0A000')) throw err;
      preparedAdmitKeys = false;
    }
  }
  return pool.query<KeyRow>(ADMIT_KEYS, values);
}

/** The state the c-th (0-based) call of a key in its batch answers with. */
function keyedState(row: KeyRow, c: number): RateState {
  const limit = row.rate_limit;
  const allowed = c < (row.granted ?? 0);
  const before = row.count_before ?? 0;
  const remaining = allowed ? Math.max(0, limit - before - c - 1) : 0;
  return { allowed, limit, remaining, reset: Math.ceil(row.reset_epoch ?? 0) };
}
