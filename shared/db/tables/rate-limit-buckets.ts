/**
 * One row per rate-limit bucket: its stored hit count (the sum of its rate_limit_seconds rows),
 * and the lock its takes queue on.
 */
export interface RateLimitBucketsTable {
  bucket: string;
  hits: number;
  /** First and last counted second as the last keyed admission saw them (sql/021): its fast path. */
  oldest: Date | null;
  newest: Date | null;
  /** The last fast-path take's grant (an UPDATE returns only new values). */
  last_granted: number | null;
}
