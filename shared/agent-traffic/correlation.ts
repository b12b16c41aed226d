import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import { foldPages } from './page-rollups.ts';

// agent_correlation (decisions.md): for a scanned URL whose site is registered and has agent
// traffic, the Spearman rank correlation between the site's pages' agent-readability scores and
// their observed agent visits (last 90 days), mapped from -1..1 to 0..100. Null when the site is
// not registered (by the caller: see CorrelationScope), has no traffic, or fewer than 3 of its
// visited pages have been scanned.

export const MIN_PAIRS = 3;

function ranks(values: number[]): number[] {
  const idx = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(values.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
    const rank = (i + j) / 2 + 1; // ties share their mean rank
    for (let k = i; k <= j; k++) out[idx[k]![1]] = rank;
    i = j + 1;
  }
  return out;
}

export function spearman(x: number[], y: number[]): number | null {
  if (x.length !== y.length || x.length < MIN_PAIRS) return null;
  const rx = ranks(x);
  const ry = ranks(y);
  const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
  const mx = mean(rx);
  const my = mean(ry);
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i]! - mx) * (ry[i]! - my);
    dx += (rx[i]! - mx) ** 2;
    dy += (ry[i]! - my) ** 2;
  }
  if (dx === 0 || dy === 0) return null;
  return num / Math.sqrt(dx * dy);
}

/**
 * Whose traffic may count. Traffic is private to the account that registered the site, and two
 * accounts may register the same URL, so the site is never looked up by URL alone:
 * - `site`: that registered site (GET /api/v1/sites/:id/citability, its owner asking);
 * - `accountId`: the caller's own site of the scanned origin, if any (a keyed scan or poll);
 * - null: an anonymous caller (the public scan, a keyless poll). Always null: any number computed
 *   from a site's traffic would reveal something of another account's private traffic, and an
 *   anonymous caller has no site of its own.
 */
export type CorrelationScope = { site: Pick<AgentSite, 'id' | 'url'> } | { accountId: string } | null;

/** A LIKE pattern matching `s` literally (Postgres's default LIKE escape is a backslash). */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, '\\$&');

export async function agentCorrelation(
  db: Kysely<Database>,
  scannedUrl: string,
  scope: CorrelationScope = null,
): Promise<number | null> {
  if (scope === null) return null;
  let origin: string;
  try {
    origin = new URL('site' in scope ? scope.site.url : scannedUrl).origin;
  } catch {
    return null;
  }
  const under = `${likeLiteral(origin)}/%`;
  let siteId: string | undefined;
  if ('site' in scope) siteId = scope.site.id;
  else {
    const row = await db
      .selectFrom('agent_sites')
      .select('id')
      .where('account_id', '=', scope.accountId)
      .where((eb) => eb.or([eb('url', 'like', under), eb('url', '=', origin)]))
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!row) return null;
    siteId = row.id;
  }
  // The site's pending page counts first (sql/018), so the visits below include them.
  await foldPages(db, siteId);
  const { rows } = await sql<{ score: number; visits: string }>`
    with visits as (
      select t.path, t.visits from agent_path_totals(${siteId}::bigint, (now() - interval '90 days')::date) t
    ), scored as (
      select distinct on (url) url, (results -> 'agent-readability' ->> 'overallScore')::int as score
      from scans where url like ${under} and status = 'done' and results ? 'agent-readability'
      order by url, finished_at desc
    )
    select scored.score, visits.visits from scored
    join visits on ${origin} || visits.path = scored.url
    where scored.score is not null`.execute(db);
  const r = spearman(
    rows.map((x) => x.score),
    rows.map((x) => Number(x.visits)),
  );
  return r === null ? null : Math.round((r + 1) * 50);
}
