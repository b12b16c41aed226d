import type { ColumnType, Generated, Selectable } from 'kysely';

export type Plan = 'growth' | 'agency';

export interface SubscriptionsTable {
  id: Generated<string>;
  account_id: string;
  plan: Plan;
  status: 'active' | 'canceled';
  site_quota: number;
  scan_frequency: 'daily' | 'weekly';
  prompt_quota: number;
  /** SHA-256 of the status-page token; the token itself is never stored (shown once). */
  status_token_hash: Buffer;
  /** The token's first characters: enough to tell which link is current, useless to attack. */
  status_token_prefix: string;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date | string>;
}
export type Subscription = Selectable<SubscriptionsTable>;
