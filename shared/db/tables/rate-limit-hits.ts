import type { ColumnType } from 'kysely';

export interface RateLimitHitsTable {
  bucket: string;
  hit_at: ColumnType<Date, never, never>;
}
