import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';

// Page and path rollups (sql/018). Each batch appends its counts per day, path and platform to
// agent_page_pending in the transaction that stores its events; agent_fold_pages moves them into
// agent_page_rollups, agent_path_rollups and agent_path_blocks (sql/019). Upserting the rollups
// in every batch cost Postgres about as much as storing the events (one upsert per distinct path
// of the batch, twice): a fold upserts each path once for many batches. A process folds a site in
// the background once it has stored FOLD_AFTER of the site's events or a minute after its first
// unfolded batch (checked at the site's next batch; skipped when a fold of the site is under way
// elsewhere), and every reader of those tables folds the site first (foldPages), waiting for a
// fold under way, so what it reads includes every acknowledged event.
export const FOLD_AFTER = 50_000;
const FOLD_EVERY_MS = 60_000;
const unfolded = new Map<string, { stored: number; since: number }>();
const folding = new Set<string>();

export function foldInBackground(db: Kysely<Database>, siteId: string, stored: number, after: number): void {
  const now = Date.now();
  let u = unfolded.get(siteId);
  if (!u) {
    u = { stored: 0, since: now };
    unfolded.set(siteId, u);
  }
  u.stored += stored;
  if (folding.has(siteId) || (u.stored < after && now - u.since < FOLD_EVERY_MS)) return;
  unfolded.delete(siteId);
  folding.add(siteId);
  // Nothing is lost if this fails (a database restart): the counts stay pending until the next
  // fold, and a reader's fold reports its own failure. The site's partition is vacuumed first:
  // what the previous fold deleted is by now invisible to every transaction (this fold's own
  // rows would still be visible to the batches in flight beside it).
  compactPending(db, siteId)
    .then(() => sql`select agent_fold_pages(${siteId}::bigint, false)`.execute(db))
    .catch(() => {})
    .finally(() => folding.delete(siteId));
}

// By site, the agent_page_pending partition that holds its rows (hash partitions: fixed).
const partitions = new Map<string, string>();

/**
 * Vacuums the partition of agent_page_pending that holds the site's counts (nothing to do while
 * the site has none). A fold deletes the rows it folds, and every reader of the site's pending
 * counts (GET /stats' top pages) scans their dead versions until a vacuum removes them, and
 * autovacuum looks at a table once a minute at best: during a big import the partition would hold
 * every fold's dead rows, read whole by every /stats call (numbers in docs/benchmarks.md, "why
 * /stats slows during a log import"). Vacuumed before each fold, it holds about two folds' rows.
 * Best effort: a failure leaves the rows to autovacuum.
 */
export async function compactPending(db: Kysely<Database>, siteId: string): Promise<void> {
  let partition = partitions.get(siteId);
  if (!partition) {
    const { rows } = await sql<{ partition: string }>`
      select tableoid::regclass::text as partition from agent_page_pending
      where site_id = ${siteId}::bigint limit 1`.execute(db);
    if (!rows[0]) return;
    partition = rows[0].partition;
    partitions.set(siteId, partition);
  }
  await sql`vacuum (skip_locked) ${sql.raw(partition)}`.execute(db).catch(() => {});
}

/**
 * Folds the site's pending page counts into the page and path rollups, waiting for a fold of
 * the site under way. Call it before reading them: afterwards they hold
 * every event acknowledged before the call.
 */
export async function foldPages(db: Kysely<Database>, siteId: string): Promise<void> {
  await sql`select agent_fold_pages(${siteId}::bigint, true)`.execute(db);
}

/**
 * Folds every site that has pending page counts (the cron task fold_agent_pages): a site that
 * stops sending before a fold trigger fires would otherwise keep its counts pending until it is
 * next read, and the pending table would grow with every such site. Sites being folded elsewhere
 * are skipped (they are being emptied).
 */
export async function foldAllPending(db: Kysely<Database>): Promise<{ sites: number; rows: number }> {
  const { rows: sites } = await sql<{ site_id: string }>`
    select distinct site_id from agent_page_pending`.execute(db);
  let rows = 0;
  for (const { site_id } of sites) {
    const r = await sql<{ n: string }>`select agent_fold_pages(${site_id}::bigint, false) as n`.execute(db);
    rows += Number(r.rows[0]?.n ?? 0);
  }
  return { sites: sites.length, rows };
}
