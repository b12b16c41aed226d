import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { Batcher } from '../db/batcher.ts';
import type { Database } from '../db/database.ts';
import { isPgError } from '../db/errors.ts';
import { poolOf } from '../db/pool.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';
import type { Plan } from '../db/tables/subscriptions.ts';
import { hashKey, keyVariant } from './keys.ts';
import { KeyLeases } from './leases.ts';
import { type RateState, WINDOW } from './rate-limit.ts';

// Tier limits (decisions.md): calls per rolling hour.
export const TIER_LIMITS: Record<ApiTier, number> = {
  free: 20,
  pro: 100,
  agent: 500,
  intelligence: 100,
  optimisation: 1000,
};

export const TIERS_BY_VARIANT: Record<Variant, ApiTier[]> = {
  A: ['free', 'pro', 'agent'],
  B: ['intelligence', 'optimisation'],
};

export interface Principal {
  keyId: string;
  accountId: string;
  variant: Variant;
  tier: ApiTier;
  limit: number;
  /** The key's account as GET /api/v1/account shows it, when admission read it (keyed calls do). */
  account?: AccountView;
}

/** An account as the API and the console show it. */
export interface AccountView {
  id: number;
  email: string;
  variant: Variant;
  tier: ApiTier;
  plan: Plan | null;
  betaFlags: Record<string, boolean>;
  notificationPreferences: Record<string, unknown>;
  createdAt: string;
}

/** An account row (with its active plan, if any) as the API and the console show it. */
export function toAccountView(row: {
  id: string | number;
  email: string;
  variant: Variant;
  tier: ApiTier;
  plan: Plan | null;
  beta_flags: Record<string, boolean>;
  notification_preferences: Record<string, unknown>;
  created_at: Date;
}): AccountView {
  return {
    id: Number(row.id),
    email: row.email,
    variant: row.variant,
    tier: row.tier,
    plan: row.plan ?? null,
    betaFlags: row.beta_flags,
    notificationPreferences: row.notification_preferences,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export type AuthResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' };

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? '';
}

/**
 * last_used_at is bookkeeping, not worth a write on every call: refreshed at most once a minute
 * per key and process. The row a call sees may be older than this process's last write (a lease
 * answers a second's calls from one statement's row), so the process remembers its own writes.
 */
const TOUCHED_MAX = 1024;
const touchedAt = new Map<string, number>();
function touchLastUsed(db: Kysely<Database>, keyId: string, lastUsed: Date | null): void {
  const now = Date.now();
  if (lastUsed && now - lastUsed.getTime() <= 60_000) return;
  const mine = touchedAt.get(keyId);
  if (mine !== undefined && now - mine <= 60_000) return;
  if (touchedAt.size >= TOUCHED_MAX) touchedAt.delete(touchedAt.keys().next().value as string);
  touchedAt.set(keyId, now);
  void db
    .updateTable('api_keys')
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', keyId)
    .execute()
    .catch(() => {});
}

// Well-formed keys seen lately, with their hashes: a busy caller's key is checked and hashed once,
// not on every call (the checksum and the stored hash are two SHA-256s, ~5% of a keyed call's
// CPU). Bounded: a flood of distinct keys only turns the oldest out.
const KNOWN_KEYS_MAX = 1024;
const knownKeys = new Map<string, WellFormedKey>();

interface WellFormedKey {
  hash: Buffer;
  /** The hash as a binary string: the key's name in this process's maps. */
  id: string;
}

/** A well-formed key's SHA-256 (checksum verified), or null for a malformed one. */
function wellFormedKey(token: string): WellFormedKey | null {
  let known = knownKeys.get(token);
  if (known) return known;
  if (!keyVariant(token)) return null;
  const hash = hashKey(token);
  known = { hash, id: hash.toString('latin1') };
  if (knownKeys.size >= KNOWN_KEYS_MAX) knownKeys.delete(knownKeys.keys().next().value as string);
  knownKeys.set(token, known);
  return known;
}

/** Resolves a bearer key to its principal. Malformed keys never reach the database. */
export async function authenticate(db: Kysely<Database>, header: string | undefined): Promise<AuthResult> {
  const token = bearerToken(header);
  if (token === undefined) return { ok: false, reason: 'missing' };
  const keyHash = wellFormedKey(token)?.hash;
  if (!keyHash) return { ok: false, reason: 'malformed' };
  // Look-up by the SHA-256 of the key: an index probe on a uniformly random value, which leaks
  // nothing useful through timing (we never compare the key itself with anything stored).
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'variant', 'tier', 'rate_limit_per_hour', 'revoked_at', 'last_used_at'])
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.revoked_at) return { ok: false, reason: 'revoked' };
  touchLastUsed(db, row.id, row.last_used_at);
  return {
    ok: true,
    principal: {
      keyId: row.id,
      accountId: row.account_id,
      variant: row.variant,
      tier: row.tier,
      limit: row.rate_limit_per_hour ?? TIER_LIMITS[row.tier],
    },
  };
}

/** One row per distinct key of a batch (admit_keys_counted, sql/021). */
interface AdmitRow {
  /** The key's position (1-based) among the batch's distinct keys. */
  ord: number;
  id: string;
  account_id: string;
  variant: Variant;
  tier: ApiTier;
  rate_limit: number;
  revoked: boolean;
  last_used_at: Date | null;
  /** The bucket's count before this batch's take, and how many of the key's calls it granted (null when revoked). */
  count_before: number | null;
  granted: number | null;
  /** When the oldest counted second leaves the window (epoch seconds). */
  reset_epoch: number | null;
  email: string | null;
  account_tier: ApiTier;
  beta_flags: Record<string, boolean>;
  notification_preferences: Record<string, unknown>;
  account_created_at: Date;
  plan: Plan | null;
  /** The second (epoch) the grant was counted in, null when nothing was granted (sql/022). */
  second_epoch: number | null;
}

/** A keyed call's answer from a batch: its key's row, its own rate state, and the key's account. */
interface Admitted {
  row: AdmitRow;
  rate: RateState;
  account?: AccountView;
}

const TIER_LIMITS_JSON = JSON.stringify(TIER_LIMITS);
const ADMIT_KEYS = 'select * from admit_keys_counted($1::bytea[], $2::int[], $3::jsonb, $4::interval)';

/**
 * admit_keys_counted as a named statement: parsed and planned once per connection, then only
 * bound and run. A migration that changes the function's result columns while this process runs
 * leaves every connection's prepared plan refusing to run ("cached plan must not change result
 * type", 0A000); the process then sends the statement unnamed, planned per call, until it restarts.
 */
let preparedAdmitKeys = true;
async function admitKeysQuery(pool: pg.Pool, values: unknown[]): Promise<{ rows: AdmitRow[] }> {
  if (preparedAdmitKeys) {
    try {
      return await pool.query<AdmitRow>({ name: 'admit_keys_counted', text: ADMIT_KEYS, values });
    } catch (err) {
      if (!(isPgError(err) && err.code === '0A000')) throw err;
      preparedAdmitKeys = false;
    }
  }
  return pool.query<AdmitRow>(ADMIT_KEYS, values);
}

/** One lease book per database handle: busy keys' calls answered without a statement each. */
const leaseBooks = new WeakMap<Kysely<Database>, KeyLeases<{ row: AdmitRow; account?: AccountView }>>();

function leasesOf(db: Kysely<Database>): KeyLeases<{ row: AdmitRow; account?: AccountView }> {
  let book = leaseBooks.get(db);
  if (!book) {
    book = new KeyLeases((back) =>
      sql`select rate_limit_give_back(${back.map((b) => b.bucket)}::text[], ${back.map((b) => b.second)}::float8[], ${back.map((b) => b.n)}::int[])`.execute(
        db,
      ),
    );
    leaseBooks.set(db, book);
  }
  return book;
}

/** Gives back every unused leased call of this handle's keys: before the handle closes. */
export function releaseLeases(db: Kysely<Database>): Promise<void> {
  return leaseBooks.get(db)?.close() ?? Promise.resolve();
}

/** One batcher per database handle: keyed calls of this process share its statements. */
const admitBatchers = new WeakMap<Kysely<Database>, Batcher<WellFormedKey, Admitted | undefined>>();

/**
 * A batch's calls grouped by key: the statement takes each key once with its number of calls,
 * and the key's calls are answered from its row in arrival order (the i-th is granted while
 * i <= granted, with the remaining count after it).
 */
async function admitBatch(db: Kysely<Database>, batch: WellFormedKey[]): Promise<(Admitted | undefined)[]> {
  // Each distinct key in order of its first call, with its calls' positions.
  const keys: { key: WellFormedKey; calls: number[] }[] = [];
  const byId = new Map<string, { key: WellFormedKey; calls: number[] }>();
  batch.forEach((key, i) => {
    const seen = byId.get(key.id);
    if (seen) seen.calls.push(i);
    else {
      const first = { key, calls: [i] };
      byId.set(key.id, first);
      keys.push(first);
    }
  });
  const distinct = keys.map((k) => k.key.hash);
  // A busy key far from its limit asks for a lease on top of its calls in hand (leases.ts).
  const leases = leasesOf(db);
  const counts = keys.map((k) => k.calls.length + leases.extra(k.key.id));
  const pool = poolOf(db);
  const values = [distinct, counts, TIER_LIMITS_JSON, WINDOW];
  const { rows } = pool
    ? await admitKeysQuery(pool, values)
    : await sql<AdmitRow>`select * from admit_keys_counted(${distinct}::bytea[], ${counts}::int[], ${TIER_LIMITS_JSON}::jsonb, ${WINDOW}::interval)`.execute(
        db,
      );
  const out: (Admitted | undefined)[] = new Array(batch.length);
  for (const row of rows) {
    const { key, calls } = keys[row.ord - 1]!;
    const account =
      row.email !== null && !row.revoked
        ? toAccountView({
            ...row,
            email: row.email,
            id: row.account_id,
            tier: row.account_tier,
            created_at: row.account_created_at,
          })
        : undefined;
    const limit = row.rate_limit;
    const before = row.count_before ?? 0;
    const granted = row.granted ?? 0;
    const reset = Math.ceil(row.reset_epoch ?? 0);
    for (let c = 0; c < calls.length; c++) {
      const allowed = c < granted;
      out[calls[c]!] = {
        row,
        account,
        rate: { allowed, limit, remaining: allowed ? Math.max(0, limit - before - c - 1) : 0, reset },
      };
    }
    if (!row.revoked) {
      const used = Math.min(granted, calls.length);
      leases.settle(
        key.id,
        {
          value: { row, account },
          bucket: `key:${row.id}`,
          limit,
          count: before + used,
          reset,
          free: limit - before - granted,
        },
        granted - used,
        row.second_epoch,
      );
    }
  }
  return out;
}

function admitBatcher(db: Kysely<Database>): Batcher<WellFormedKey, Admitted | undefined> {
  let batcher = admitBatchers.get(db);
  if (!batcher) {
    batcher = new Batcher((batch) => admitBatch(db, batch));
    admitBatchers.set(db, batcher);
  }
  return batcher;
}

/**
 * A keyed call's authentication and its count in the rolling hour, in one statement shared with
 * the other keyed calls in flight (admit_keys_counted, sql/021): the key by its hash, then its take
 * from the key's bucket when it is live.
 */
export async function authenticateAndTake(
  db: Kysely<Database>,
  header: string | undefined,
  opts: { leases?: boolean } = {},
): Promise<Exclude<AuthResult, { ok: true }> | { ok: true; principal: Principal; rate: RateState }> {
  const token = bearerToken(header);
  if (token === undefined) return { ok: false, reason: 'missing' };
  const key = wellFormedKey(token);
  if (!key) return { ok: false, reason: 'malformed' };
  // Without notes of its calls, a key never asks for a lease (extra() is 0).
  const leases = opts.leases === false ? undefined : leasesOf(db);
  leases?.noteCall(key.id);
  const lease = leases?.take(key.id);
  if (lease) {
    // Answered from the key's lease of this second (leases.ts): no statement, a live key.
    const { row, account } = lease.value;
    const rate = {
      allowed: true,
      limit: lease.limit,
      remaining: Math.max(0, lease.limit - lease.count),
      reset: lease.reset,
    };
    touchLastUsed(db, String(row.id), row.last_used_at);
    return { ok: true, principal: principalOf(row, account), rate };
  }
  const admitted = await admitBatcher(db).load(key);
  if (!admitted) return { ok: false, reason: 'unknown' };
  const { row, account, rate } = admitted;
  if (row.revoked) return { ok: false, reason: 'revoked' };
  touchLastUsed(db, String(row.id), row.last_used_at);
  return { ok: true, principal: principalOf(row, account), rate };
}

/** A live key's principal from its admission row (and the account it read). */
function principalOf(row: AdmitRow, account: AccountView | undefined): Principal {
  return {
    keyId: String(row.id),
    accountId: String(row.account_id),
    variant: row.variant,
    tier: row.tier,
    limit: row.rate_limit,
    account,
  };
}
