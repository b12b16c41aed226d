import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { accountsWithPlan } from './accounts.ts';

/** One row of the operator's account list: who, which product, which plan. */
export interface AccountSummary {
  id: number;
  email: string;
  variant: 'A' | 'B';
  tier: string;
  plan: string | null;
  createdAt: string;
}

/** An account as an operator looks it up: its keys (prefixes only) and its sites. */
export interface AccountDetails extends AccountSummary {
  keys: { prefix: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null }[];
  monitoredSites: { id: number; url: string; label: string; siteType: string; status: string }[];
  agentSites: { id: number; url: string; label: string }[];
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function summaryQuery(db: Kysely<Database>) {
  return accountsWithPlan(db).select([
    'accounts.id',
    'accounts.email',
    'accounts.variant',
    'accounts.tier',
    'accounts.created_at',
    'subscriptions.plan',
  ]);
}

type SummaryRow = Awaited<ReturnType<ReturnType<typeof summaryQuery>['executeTakeFirstOrThrow']>>;

function toSummary(row: SummaryRow): AccountSummary {
  return {
    id: Number(row.id),
    email: row.email,
    variant: row.variant,
    tier: row.tier,
    plan: row.plan ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Accounts, newest first. `email` matches case-insensitively anywhere in the address, so an
 * operator can find a customer by a domain (`--email example.com`) as well as by the address.
 */
export async function listAccounts(
  db: Kysely<Database>,
  filter: { email?: string; limit?: number } = {},
): Promise<AccountSummary[]> {
  let query = summaryQuery(db);
  if (filter.email) {
    const escaped = filter.email.replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where('accounts.email', 'ilike', `%${escaped}%`);
  }
  const rows = await query
    .orderBy('accounts.id', 'desc')
    .limit(filter.limit ?? 100)
    .execute();
  return rows.map(toSummary);
}

export async function accountDetails(
  db: Kysely<Database>,
  accountId: string,
): Promise<AccountDetails | undefined> {
  const row = await summaryQuery(db).where('accounts.id', '=', accountId).executeTakeFirst();
  if (!row) return undefined;
  const [keys, monitored, agentSites] = await Promise.all([
    db
      .selectFrom('api_keys')
      .select(['display_prefix', 'created_at', 'last_used_at', 'revoked_at'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('monitored_sites')
      .select(['id', 'url', 'label', 'site_type', 'status'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('agent_sites')
      .select(['id', 'url', 'label'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute(),
  ]);
  return {
    ...toSummary(row),
    keys: keys.map((k) => ({
      prefix: k.display_prefix,
      createdAt: k.created_at.toISOString(),
      lastUsedAt: iso(k.last_used_at),
      revokedAt: iso(k.revoked_at),
    })),
    monitoredSites: monitored.map((s) => ({
      id: Number(s.id),
      url: s.url,
      label: s.label,
      siteType: s.site_type,
      status: s.status,
    })),
    agentSites: agentSites.map((s) => ({ id: Number(s.id), url: s.url, label: s.label })),
  };
}
