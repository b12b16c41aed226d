import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';
import { hashKey, keyVariant } from './keys.ts';
import { type RateState, toRateState, WINDOW } from './rate-limit.ts';

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
}

export type AuthResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' };

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? '';
}

/** last_used_at is bookkeeping, not worth a write on every call: refreshed at most once a minute. */
function touchLastUsed(db: Kysely<Database>, keyId: string, lastUsed: Date | null): void {
  if (lastUsed && Date.now() - lastUsed.getTime() <= 60_000) return;
  void db
    .updateTable('api_keys')
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', keyId)
    .execute()
    .catch(() => {});
}

/** Resolves a bearer key to its principal. Malformed keys never reach the database. */
export async function authenticate(db: Kysely<Database>, header: string | undefined): Promise<AuthResult> {
  const token = bearerToken(header);
  if (token === undefined) return { ok: false, reason: 'missing' };
  if (!keyVariant(token)) return { ok: false, reason: 'malformed' };
  // Look-up by the SHA-256 of the key: an index probe on a uniformly random value, which leaks
  // nothing useful through timing (we never compare the key itself with anything stored).
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'variant', 'tier', 'rate_limit_per_hour', 'revoked_at', 'last_used_at'])
    .where('key_hash', '=', hashKey(token))
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
 * A keyed call's authentication and its count in the rolling hour, in ONE database round trip
 * (admit_key in sql/010): the key by its hash, then one take from its bucket when it is live.
 */
export async function authenticateAndTake(
  db: Kysely<Database>,
  header: string | undefined,
): Promise<Exclude<AuthResult, { ok: true }> | { ok: true; principal: Principal; rate: RateState }> {
  const token = bearerToken(header);
  if (token === undefined) return { ok: false, reason: 'missing' };
  if (!keyVariant(token)) return { ok: false, reason: 'malformed' };
  const { rows } = await sql<{
    id: string;
    account_id: string;
    variant: Variant;
    tier: ApiTier;
    rate_limit: number;
    revoked: boolean;
    last_used_at: Date | null;
    allowed: boolean;
    remaining: number;
    reset_at: Date;
  }>`select * from admit_key(${hashKey(token)}, ${JSON.stringify(TIER_LIMITS)}::jsonb, ${WINDOW}::interval)`.execute(
    db,
  );
  const row = rows[0];
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.revoked) return { ok: false, reason: 'revoked' };
  touchLastUsed(db, String(row.id), row.last_used_at);
  const principal: Principal = {
    keyId: String(row.id),
    accountId: String(row.account_id),
    variant: row.variant,
    tier: row.tier,
    limit: row.rate_limit,
  };
  return { ok: true, principal, rate: toRateState(row, row.rate_limit) };
}
