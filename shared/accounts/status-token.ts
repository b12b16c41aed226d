import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';

// The public status page of a subscription ({site_url}/status/<token>) is reached by its token
// alone, so the token is a credential and is kept like an API key: 144 random bits (24 base64url
// characters), stored only as its SHA-256 with a 6-character display prefix. It is shown once,
// when the subscription is created and each time it is rotated; rotation ends the old link at once.

export const STATUS_TOKEN_PREFIX_LENGTH = 6;
/** What a token may look like; anything else is refused without a database look-up. */
export const STATUS_TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

export interface IssuedStatusToken {
  token: string; // shown once
  hash: Buffer;
  prefix: string;
}

export function newStatusToken(): IssuedStatusToken {
  const token = randomBytes(18).toString('base64url');
  return { token, hash: hashStatusToken(token), prefix: token.slice(0, STATUS_TOKEN_PREFIX_LENGTH) };
}

export function hashStatusToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Gives the account's subscription (active or not) a new status token and returns it, or
 * undefined when the account has no subscription. The old link stops working at once.
 */
export async function rotateStatusToken(
  db: Kysely<Database>,
  accountId: string,
): Promise<string | undefined> {
  const issued = newStatusToken();
  const row = await db
    .updateTable('subscriptions')
    .set({
      status_token_hash: issued.hash,
      status_token_prefix: issued.prefix,
      updated_at: sql<Date>`now()`,
    })
    .where('account_id', '=', accountId)
    .returning('id')
    .executeTakeFirst();
  return row ? issued.token : undefined;
}
