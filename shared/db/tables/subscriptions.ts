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
  status_token: string;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date | string>;
}
export type Subscription = Selectable<SubscriptionsTable>;
