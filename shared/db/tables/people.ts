import type { ColumnType, Selectable } from 'kysely';
import type { ApiTier, Variant } from './accounts.ts';

export interface PeopleTable {
  account_id: string;
  password_hash: string;
  created_at: ColumnType<Date, never, never>;
  password_changed_at: ColumnType<Date, never, Date | string>;
}
export type Person = Selectable<PeopleTable>;

export interface SessionsTable {
  id_hash: Buffer;
  account_id: string;
  csrf_token: string;
  user_agent: string | null;
  created_at: ColumnType<Date, never, never>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
}
export type Session = Selectable<SessionsTable>;

export type EmailTokenPurpose = 'signup' | 'invite' | 'reset';

export interface EmailTokensTable {
  token_hash: Buffer;
  purpose: EmailTokenPurpose;
  email: string;
  variant: Variant | null;
  tier: ApiTier | null;
  password_hash: string | null;
  account_id: string | null;
  created_by: string | null;
  created_at: ColumnType<Date, never, never>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: ColumnType<Date | null, never, Date | string>;
}
export type EmailToken = Selectable<EmailTokensTable>;
