/**
 * One row per rate-limit bucket: its stored hit count (the sum of its rate_limit_seconds rows),
 * and the lock its takes queue on (sql/functions/rate-limits.sql).
 */
export interface RateLimitBucketsTable {
  bucket: string;
  hits: number;
}
