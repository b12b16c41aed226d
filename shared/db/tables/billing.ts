import type { ColumnType } from 'kysely';
import type { Plan } from './subscriptions.ts';

export interface StripeEventsTable {
  id: string;
  type: string;
  account_id: string | null;
  handled_at: ColumnType<Date, never, never>;
}

export interface StripeSubscriptionsTable {
  id: string;
  account_id: string;
  plan: Plan;
  status: string;
  updated_at: ColumnType<Date, never, Date | string>;
}
