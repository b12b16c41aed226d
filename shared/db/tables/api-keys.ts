import type { ColumnType, Generated, Selectable } from 'kysely';
import type { ApiTier, Variant } from './accounts.ts';

export interface ApiKeysTable {
  id: Generated<string>;
  account_id: string;
  key_hash: Buffer;
  display_prefix: string;
  variant: Variant;
  tier: ApiTier;
  rate_limit_per_hour: number | null;
  created_at: ColumnType<Date, never, never>;
  last_used_at: ColumnType<Date | null, never, Date | string>;
  revoked_at: ColumnType<Date | null, never, Date | string>;
}
export type ApiKey = Selectable<ApiKeysTable>;
