import type { ColumnType, Generated, Selectable } from 'kysely';

export type Variant = 'A' | 'B';
export type ApiTier = 'free' | 'pro' | 'agent' | 'intelligence' | 'optimisation';

export interface AccountsTable {
  id: Generated<string>; // bigint arrives as a string from pg
  email: string;
  variant: Variant;
  tier: ApiTier;
  beta_flags: ColumnType<Record<string, boolean>, string | undefined, string>;
  notification_preferences: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: ColumnType<Date, never, never>;
  /** Standard Webhooks signing secret (whsec_...), made on first use by shared/webhooks. */
  webhook_secret: ColumnType<string | null, never, string>;
}
export type Account = Selectable<AccountsTable>;
