import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';

// Benchmarks across this deployment: score percentiles per dimension of every site scanned (the
// newest agent-readability scan of each URL), where the account's own sites rank, and how agent
// traffic splits by platform and type. Only aggregates leave this module: no other account's URL,
// site or count, and a platform seen on fewer than MIN_SITES sites is folded into "Other".

export const MIN_SITES = 3;
const DIMENSIONS = [
  'overall',
  'structure',
  'citability',
  'discoverability',
  'agent_interface',
  'transactability',
];

const latestScores = sql`
  latest as (
    select distinct on (url) url,
      (results -> 'agent-readability' ->> 'overallScore')::numeric as overall,
      results -> 'agent-readability' -> 'dimensions' as dims, finished_at
    from scans where status = 'done' and results ? 'agent-readability'
    order by url, finished_at desc
  ), scores as (
    select url, 'overall' as dimension, overall as score from latest where overall is not null
    union all
    select url, d ->> 'id', (d ->> 'score')::numeric from latest, jsonb_array_elements(dims) d
    where d ->> 'score' is not null
  )`;

export async function benchmarks(db: Kysely<Database>, accountId: string) {
  const [pct, ranks, traffic] = await Promise.all([
    sql<{
      dimension: string;
      sites: string;
      p10: number;
      p25: number;
      p50: number;
      p75: number;
      p90: number;
      mean: number;
    }>`
      with ${latestScores}
      select dimension, count(*)::bigint as sites,
        percentile_cont(0.1) within group (order by score) as p10,
        percentile_cont(0.25) within group (order by score) as p25,
        percentile_cont(0.5) within group (order by score) as p50,
        percentile_cont(0.75) within group (order by score) as p75,
        percentile_cont(0.9) within group (order by score) as p90,
        avg(score)::float8 as mean
      from scores group by dimension`.execute(db),
    sql<{ site_id: string; url: string; dimension: string; score: number; rank: number }>`
      with ${latestScores}, ranked as (
        select url, dimension, score, percent_rank() over (partition by dimension order by score) as rank from scores
      )
      select s.id as site_id, s.url, r.dimension, r.score::float8 as score, r.rank::float8 as rank
      from agent_sites s join ranked r on r.url = s.url
      where s.account_id = ${accountId}`.execute(db),
    // Sites are counted per platform and over everything (a site seen under two types is one
    // site), so the per-(platform, type) rows carry visits only.
    sql<TrafficRow>`
      select platform, type, grouping(platform, type) as level,
        sum(visits)::bigint as visits, count(distinct site_id)::bigint as sites
      from agent_rollups where hour >= now() - interval '30 days' and verification <> 'spoofed'
      group by grouping sets ((platform, type), (platform), ())`.execute(db),
  ]);

  const round = (n: number) => Math.round(n * 10) / 10;
  const dimensions = DIMENSIONS.map((id) => {
    const r = pct.rows.find((x) => x.dimension === id);
    return r
      ? {
          id,
          sites: Number(r.sites),
          p10: round(r.p10),
          p25: round(r.p25),
          p50: round(r.p50),
          p75: round(r.p75),
          p90: round(r.p90),
          mean: round(r.mean),
        }
      : { id, sites: 0, p10: null, p25: null, p50: null, p75: null, p90: null, mean: null };
  });

  const yourSites = new Map<
    string,
    { siteId: number; url: string; ranks: Record<string, { score: number; percentile: number }> }
  >();
  for (const r of ranks.rows) {
    const s = yourSites.get(r.site_id) ?? { siteId: Number(r.site_id), url: r.url, ranks: {} };
    s.ranks[r.dimension] = { score: r.score, percentile: Math.round(r.rank * 100) };
    yourSites.set(r.site_id, s);
  }

  return {
    dimensions,
    yourSites: [...yourSites.values()],
    traffic: distribution(traffic.rows),
  };
}

/** A traffic row at one grouping level: 0 platform and type, 1 platform, 3 everything. */
interface TrafficRow {
  platform: string | null;
  type: string | null;
  level: number;
  visits: string;
  sites: string;
}

function distribution(rows: TrafficRow[]) {
  const platforms = new Map<string, { visits: number; sites: number }>();
  const types = new Map<string, number>();
  let total = 0;
  let sitesWithTraffic = 0;
  for (const r of rows) {
    const n = Number(r.visits);
    if (r.level === 3) {
      sitesWithTraffic = Number(r.sites);
    } else if (r.level === 1) {
      platforms.set(r.platform!, { visits: n, sites: Number(r.sites) });
    } else {
      total += n;
      const type = r.type || 'unknown';
      types.set(type, (types.get(type) ?? 0) + n);
    }
  }
  const shown = new Map<string, number>();
  for (const [name, p] of platforms) {
    const key = p.sites >= MIN_SITES ? name : 'Other';
    shown.set(key, (shown.get(key) ?? 0) + p.visits);
  }
  const share = (n: number) => (total ? Math.round((1000 * n) / total) / 10 : 0);
  return {
    window: '30 days',
    sitesWithTraffic,
    platforms: [...shown]
      .map(([platform, v]) => ({ platform, share: share(v) }))
      .sort((a, b) => b.share - a.share),
    types: [...types].map(([type, v]) => ({ type, share: share(v) })).sort((a, b) => b.share - a.share),
  };
}

/** Weekly medians of the overall score and the weekly traffic split by type, for the last `weeks` weeks. */
export async function benchmarkTrends(db: Kysely<Database>, weeks = 12) {
  const [scores, traffic] = await Promise.all([
    sql<{ week: string; scans: string; p25: number; p50: number; p75: number }>`
      select to_char(date_trunc('week', finished_at at time zone 'UTC'), 'YYYY-MM-DD') as week, count(*)::bigint as scans,
        percentile_cont(0.25) within group (order by (results -> 'agent-readability' ->> 'overallScore')::numeric) as p25,
        percentile_cont(0.5) within group (order by (results -> 'agent-readability' ->> 'overallScore')::numeric) as p50,
        percentile_cont(0.75) within group (order by (results -> 'agent-readability' ->> 'overallScore')::numeric) as p75
      from scans
      where status = 'done' and results ? 'agent-readability' and finished_at >= now() - make_interval(weeks => ${weeks}::int)
      group by 1 order by 1`.execute(db),
    sql<{ week: string; type: string; visits: string; sites: string }>`
      select to_char(date_trunc('week', hour at time zone 'UTC'), 'YYYY-MM-DD') as week, type,
        sum(visits)::bigint as visits, count(distinct site_id)::bigint as sites
      from agent_rollups where hour >= now() - make_interval(weeks => ${weeks}::int) and verification <> 'spoofed'
      group by 1, 2 order by 1`.execute(db),
  ]);
  const weeksList = [
    ...new Set([...scores.rows.map((r) => r.week), ...traffic.rows.map((r) => r.week)]),
  ].sort();
  return {
    weeks: weeksList.map((week) => {
      const s = scores.rows.find((r) => r.week === week);
      const t = traffic.rows.filter((r) => r.week === week);
      const total = t.reduce((n, r) => n + Number(r.visits), 0);
      return {
        week,
        scans: Number(s?.scans ?? 0),
        overall: s ? { p25: Math.round(s.p25), p50: Math.round(s.p50), p75: Math.round(s.p75) } : null,
        trafficByType: Object.fromEntries(
          t.map((r) => [r.type || 'unknown', total ? Math.round((1000 * Number(r.visits)) / total) / 10 : 0]),
        ),
      };
    }),
  };
}
