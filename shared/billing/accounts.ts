import { type Kysely, sql } from 'kysely';
import { createAccount } from '../accounts/accounts.ts';
import type { Database } from '../db/database.ts';
import { normalizeEmail } from '../people/people.ts';

// The account a payment belongs to: found by email (case-insensitively, as sign-in does) or made
// for a new customer (variant A, pro tier: it orders audits and reads them over the API).

export interface Buyer {
  accountId: string;
  email: string;
  variant: 'A' | 'B';
  /** The new account's API key, shown once (in the email); null for an existing account. */
  newKey: string | null;
}

export async function findOrCreateBuyer(db: Kysely<Database>, rawEmail: string): Promise<Buyer> {
  const email = normalizeEmail(rawEmail);
  const existing = await db
    .selectFrom('accounts')
    .select(['id', 'email', 'variant'])
    .where(sql<string>`lower(email)`, '=', email)
    .executeTakeFirst();
  if (existing)
    return { accountId: existing.id, email: existing.email, variant: existing.variant, newKey: null };
  const { account, key } = await createAccount(db, { email, variant: 'A', tier: 'pro' });
  return { accountId: account.id, email, variant: 'A', newKey: key.key };
}
