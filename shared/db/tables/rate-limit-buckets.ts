/** One row per rate-limit bucket: its stored hit count, and the lock its takes queue on. */
export interface RateLimitBucketsTable {
  bucket: string;
  hits: number;
}
