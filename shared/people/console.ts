import { type Kysely, sql } from 'kysely';
import { issueKey } from '../accounts/accounts.ts';
import type { Database } from '../db/database.ts';

// What the console shows and changes about an account's own keys and preferences. Every query is
// scoped by account id: another account's key id is simply not found.

export async function listKeys(db: Kysely<Database>, accountId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'display_prefix', 'tier', 'created_at', 'last_used_at', 'revoked_at'])
    .where('account_id', '=', accountId)
    .orderBy('revoked_at', (ob) => ob.desc().nullsFirst())
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Revokes one live key of this account; false when the account has no such live key. */
export async function revokeOwnKey(db: Kysely<Database>, accountId: string, keyId: string): Promise<boolean> {
  if (!/^\d{1,18}$/.test(keyId)) return false;
  const r = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function ownKeyExists(db: Kysely<Database>, accountId: string, keyId: string): Promise<boolean> {
  if (!/^\d{1,18}$/.test(keyId)) return false;
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface NotificationPreferences {
  email_alerts: boolean;
  weekly_digest: boolean;
}

export async function setNotificationPreferences(
  db: Kysely<Database>,
  accountId: string,
  prefs: NotificationPreferences,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ notification_preferences: JSON.stringify(prefs) })
    .where('id', '=', accountId)
    .execute();
}

export async function liveKeyCount(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A new key made by the account itself, unless it already holds `max` live ones (CONSOLE_MAX_KEYS):
 * rate limits are counted per key, so keys without end would multiply the tier's hourly
 * allowance. The account row's lock makes concurrent requests count each other. Null at the cap.
 */
export async function issueOwnKey(db: Kysely<Database>, accountId: string, max: number) {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
    if ((await liveKeyCount(trx, accountId)) >= max) return null;
    return issueKey(trx, accountId);
  });
}
