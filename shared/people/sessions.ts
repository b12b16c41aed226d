import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';

// Console sessions live in Postgres. The cookie holds a random 256-bit token; only its SHA-256 is
// stored, so a database read does not yield a usable session. Each session has its own CSRF token.

export const SESSION_COOKIE = 'sl_session';

export const newSecret = () => randomBytes(32).toString('base64url');
export const sha256 = (s: string) => createHash('sha256').update(s).digest();

export interface SessionView {
  accountId: string;
  email: string;
  variant: Variant;
  tier: ApiTier;
  csrf: string;
}

export async function createSession(
  db: Kysely<Database>,
  accountId: string,
  ttlDays: number,
  userAgent?: string,
): Promise<{ token: string; csrf: string; maxAgeMs: number }> {
  const token = newSecret();
  const csrf = newSecret();
  // Expired sessions go whenever a new one starts: no separate sweeper needed for the table to stay small.
  await db.deleteFrom('sessions').where('expires_at', '<', sql<Date>`now()`).execute();
  await db
    .insertInto('sessions')
    .values({
      id_hash: sha256(token),
      account_id: accountId,
      csrf_token: csrf,
      user_agent: userAgent?.slice(0, 300) ?? null,
      expires_at: sql<Date>`now() + make_interval(days => ${ttlDays})`,
    })
    .execute();
  return { token, csrf, maxAgeMs: ttlDays * 86_400_000 };
}

export async function loadSession(
  db: Kysely<Database>,
  token: string | undefined,
): Promise<SessionView | null> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = await db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select(['accounts.id', 'accounts.email', 'accounts.variant', 'accounts.tier', 'sessions.csrf_token'])
    .where('sessions.id_hash', '=', sha256(token))
    .where('sessions.expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  if (!row) return null;
  return { accountId: row.id, email: row.email, variant: row.variant, tier: row.tier, csrf: row.csrf_token };
}

export async function endSession(db: Kysely<Database>, token: string | undefined): Promise<void> {
  if (!token) return;
  await db.deleteFrom('sessions').where('id_hash', '=', sha256(token)).execute();
}

export async function endAllSessions(db: Kysely<Database>, accountId: string): Promise<void> {
  await db.deleteFrom('sessions').where('account_id', '=', accountId).execute();
}
