import type { ColumnType } from 'kysely';

/** A bucket's calls in one second of its rolling hour (sql/functions/rate-limits.sql): they count until second + 1 s + 1 hour. */
export interface RateLimitSecondsTable {
  bucket: string;
  second: ColumnType<Date, never, never>;
  hits: number;
}
