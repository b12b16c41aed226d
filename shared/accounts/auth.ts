import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';
import type { Plan } from '../db/tables/subscriptions.ts';
import { hashKey, keyVariant } from './keys.ts';
import { type RateState, takeKeyed } from './rate-limit.ts';

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
 * per key and process. The process remembers its own writes, which rows read while the write was
 * in flight do not show yet.
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
// not on every call (the checksum and the stored hash are two SHA-256s). Bounded: a flood of
// distinct keys only turns the oldest out.
const KNOWN_KEYS_MAX = 1024;
const knownKeys = new Map<string, Buffer>();

/** A well-formed key's SHA-256 (checksum verified), or null for a malformed one. */
function wellFormedKey(token: string): Buffer | null {
  const known = knownKeys.get(token);
  if (known) return known;
  if (!keyVariant(token)) return null;
  const hash = hashKey(token);
  if (knownKeys.size >= KNOWN_KEYS_MAX) knownKeys.delete(knownKeys.keys().next().value as string);
  knownKeys.set(token, hash);
  return hash;
}

/** Resolves a bearer key to its principal. Malformed keys never reach the database. */
export async function authenticate(db: Kysely<Database>, header: string | undefined): Promise<AuthResult> {
  const token = bearerToken(header);
  if (token === undefined) return { ok: false, reason: 'missing' };
  const keyHash = wellFormedKey(token);
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

/**
 * A keyed call's authentication and its count in the rolling hour, in one statement shared with
 * the other keyed calls in flight (takeKeyed, rate-limit.ts): the key by its hash, then one call
 * counted in the key's bucket when it is live.
 */
export async function authenticateAndTake(
  db: Kysely<Database>,
  header: string | undefined,
): Promise<Exclude<AuthResult, { ok: true }> | { ok: true; principal: Principal; rate: RateState }> {
  const token = bearerToken(header);
  if (token === undefined) return { ok: false, reason: 'missing' };
  const keyHash = wellFormedKey(token);
  if (!keyHash) return { ok: false, reason: 'malformed' };
  const taken = await takeKeyed(db, keyHash, TIER_LIMITS);
  if (!taken) return { ok: false, reason: 'unknown' };
  const { row, rate } = taken;
  if (row.revoked || !rate) return { ok: false, reason: 'revoked' };
  touchLastUsed(db, String(row.id), row.last_used_at);
  const account = toAccountView({
    ...row,
    id: row.account_id,
    tier: row.account_tier,
    created_at: row.account_created_at,
  });
  const principal: Principal = {
    keyId: String(row.id),
    accountId: String(row.account_id),
    variant: row.variant,
    tier: row.tier,
    limit: row.rate_limit,
    account,
  };
  return { ok: true, principal, rate };
}
