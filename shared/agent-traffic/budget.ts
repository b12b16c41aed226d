import { type Kysely, sql } from 'kysely';
import type { RateState } from '../accounts/rate-limit.ts';
import type { Database } from '../db/database.ts';

// Ingestion's own budget: events per rolling hour per site (bucket `ingest:<siteId>`), apart from
// the key's calls, so a site posting a batch every few seconds never exhausts its owner's API
// calls. Counted in Postgres by weight (rate_limit_take_n, sql/006), one row per bucket-minute.

export const ingestBucket = (siteId: string) => `ingest:${siteId}`;

/** Takes `n` events from the site's budget, or none when they do not all fit. */
export async function takeEvents(
  db: Kysely<Database>,
  siteId: string,
  n: number,
  limit: number,
): Promise<RateState> {
  const { rows } = await sql<{ allowed: boolean; remaining: string; reset_at: Date }>`
    select * from rate_limit_take_n(${ingestBucket(siteId)}, ${n}::int, ${limit}::bigint, interval '1 hour')`.execute(
    db,
  );
  const r = rows[0]!;
  return {
    allowed: r.allowed,
    limit,
    remaining: Math.max(0, Number(r.remaining)),
    reset: Math.ceil(new Date(r.reset_at).getTime() / 1000),
  };
}
