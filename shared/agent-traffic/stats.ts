import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { AgentSite, Verification } from '../db/tables/agent-traffic.ts';
import { badRequest } from '../errors.ts';
import { foldPages } from './page-rollups.ts';
import {
  agentDaySource,
  type DaySpan,
  isFiltered,
  pagePlatformSource,
  referralConditions,
  type TrafficFilter,
} from './traffic-filter.ts';

// What the statistics endpoints read. Everything but /events comes from the rollups, so a site
// with tens of millions of events answers as fast as a small one. Visits count what the user
// agent claims; `verification` says how much of it is proven (and how much is spoofed).

export const VERIFICATIONS: Verification[] = [
  'signature',
  'ip',
  'rdns',
  'none',
  'pending',
  'unverified',
  'spoofed',
];
export type VerificationMix = Record<Verification, number>;
const emptyMix = (): VerificationMix => ({
  signature: 0,
  ip: 0,
  rdns: 0,
  none: 0,
  pending: 0,
  unverified: 0,
  spoofed: 0,
});
const verifiedOf = (m: VerificationMix) => m.signature + m.ip + m.rdns;
/** Visits of every kind of agent (search engines included) still waiting for reverse DNS. */
const pendingOf = (rows: { verification: Verification; visits: string }[]) =>
  rows.reduce((n, r) => (r.verification === 'pending' ? n + Number(r.visits) : n), 0);
const pct = (part: number, whole: number) => (whole ? Math.round((1000 * part) / whole) / 10 : 0);

export interface Window {
  since: Date;
  until: Date;
  /** `since` as asked for (or the default) when resolveWindow moved it; see windowStart. */
  requested?: Date;
  /** An end was asked for: the counts stop after the UTC day of `until`, not at now. */
  closed?: boolean;
}

const DAY_MS = 86400_000;

/**
 * Where a window's counts begin: 00:00 UTC of the day that contains `since`. Pages, paths, AI
 * referrals and coverage are kept per UTC day only (sql/006, sql/019), so every part of a response
 * starts on that midnight (agent visits too, though they are kept per hour): one start for all, and
 * no part of the day `since` names is dropped. Idempotent: a start on a midnight stays.
 */
export function windowStart(w: Pick<Window, 'since'>): Date {
  const t = w.since.getTime();
  return new Date(Math.floor(t / DAY_MS) * DAY_MS);
}

/** How the window's start relates to the `since` asked for (every windowed response says it). */
export const WINDOW_RULE = 'utc-day-of-since';

/** The window fields of every windowed response: where the counts begin, what was asked for, now. */
export function windowFields(w: Window) {
  return {
    since: windowStart(w).toISOString(),
    requestedSince: (w.requested ?? w.since).toISOString(),
    windowRule: WINDOW_RULE,
    until: w.until.toISOString(),
  };
}

/**
 * `since` as given, else `defaultDays` days before the database's now, moved to the midnight of its
 * UTC day (windowStart); `requested` keeps the start asked for. `lastDay` (YYYY-MM-DD), when given,
 * ends the window with that UTC day (or now, if that is sooner).
 */
export async function resolveWindow(
  db: Kysely<Database>,
  since?: string,
  defaultDays = 30,
  lastDay?: string,
): Promise<Window> {
  const { rows } = await sql<{ now: Date; since: Date; until: Date }>`
    select now() as now, coalesce(${since ?? null}::timestamptz, now() - make_interval(days => ${defaultDays}::int)) as since,
      least(now(), coalesce((${lastDay ?? null}::date + 1)::timestamp at time zone 'UTC' - interval '1 millisecond', now())) as until`.execute(
    db,
  );
  const r = rows[0]!;
  if (r.since > r.now)
    throw badRequest('since lies in the future.', [{ field: 'query.since', message: 'in the future' }]);
  if (r.since > r.until)
    throw badRequest('The window ends before it starts.', [
      { field: 'query.until', message: 'before since' },
    ]);
  return { since: windowStart(r), until: r.until, requested: r.since, closed: lastDay !== undefined };
}

/** The window's UTC days, first and last included. */
export const daySpan = (w: Window): DaySpan => ({ from: day(windowStart(w)), to: day(w.until) });

/** Whether the path totals since a day (agent_path_totals: no end, no agent) can answer. */
const openAndUnfiltered = (w: Window, f: TrafficFilter) => !w.closed && !isFiltered(f);

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The site's 10 most visited paths since `from`: the folded path totals plus the site's pending
 * counts (sql/018) read as they are, not folded first. One statement's snapshot sees a pending row
 * either still pending or already folded (a fold deletes and upserts in one transaction), so each
 * count is read once; and the reader never waits for a fold under way, nor writes, so /stats stays
 * as fast while the site is being imported. The pending rows are few (folds follow every 50,000
 * events).
 */
function topPaths(db: Kysely<Database>, site: AgentSite, w: Window, f: TrafficFilter) {
  const span = daySpan(w);
  if (!openAndUnfiltered(w, f))
    return sql<{ path: string; visits: string }>`
      select path, sum(visits)::bigint as visits from ${pagePlatformSource(site, span, f)} t
      group by path order by visits desc, path limit 10`.execute(db);
  const siteId = site.id;
  const from = span.from;
  return sql<{ path: string; visits: string }>`
    select path, sum(visits)::bigint as visits from (
      select path, visits from agent_path_totals(${siteId}, ${from}::date)
      union all
      select path, visits from agent_page_pending where site_id = ${siteId}::bigint and day >= ${from}::date
    ) t group by path order by visits desc, path limit 10`.execute(db);
}

/** One entry per UTC day of the window; a day no source covered is a gap (null), not zero. */
function dailyTrend(
  start: Date,
  until: Date,
  visitsByDay: Map<string, { visits: number; verified: number }>,
  dailyRefs: { day: string; visits: string }[],
  coverage: { day: string; sources: string[] }[],
) {
  const refsByDay = new Map(dailyRefs.map((r) => [r.day, Number(r.visits)]));
  const covered = new Map(coverage.map((r) => [r.day, r.sources]));
  const trend: {
    date: string;
    covered: boolean;
    sources: string[];
    visits: number | null;
    verified: number | null;
    aiReferrals: number | null;
  }[] = [];
  for (let d = start; d <= until; d = new Date(d.getTime() + DAY_MS)) {
    const key = day(d);
    const v = visitsByDay.get(key);
    const isCovered = covered.has(key) || v !== undefined;
    trend.push({
      date: key,
      covered: isCovered,
      sources: covered.get(key) ?? [],
      visits: isCovered ? (v?.visits ?? 0) : null,
      verified: isCovered ? (v?.verified ?? 0) : null,
      aiReferrals: isCovered ? (refsByDay.get(key) ?? 0) : null,
    });
  }
  return trend;
}

export async function siteStats(db: Kysely<Database>, site: AgentSite, w: Window, f: TrafficFilter = {}) {
  // Every part from the same UTC midnight: pages, referrals and coverage have no finer grain.
  const start = windowStart(w);
  const span = daySpan(w);
  const { from, to } = span;
  const refs = sql`site_id = ${site.id} and day between ${from}::date and ${to}::date ${referralConditions(f)}`;
  // One pass over the window's days serves the platform/type/verification totals and the daily
  // trend.
  const [byDay, pages, referrals, dailyRefs, coverage] = await Promise.all([
    sql<{ day: string; platform: string; type: string; verification: Verification; visits: string }>`
      select to_char(day, 'YYYY-MM-DD') as day, platform, type, verification, sum(visits)::bigint as visits
      from ${agentDaySource(site, span, f)} d group by 1, 2, 3, 4`.execute(db),
    topPaths(db, site, w, f),
    sql<{ platform: string; visits: string }>`
      select platform, sum(visits)::bigint as visits from ai_referral_rollups
      where ${refs} group by platform order by visits desc, platform`.execute(db),
    sql<{ day: string; visits: string }>`
      select to_char(day, 'YYYY-MM-DD') as day, sum(visits)::bigint as visits from ai_referral_rollups
      where ${refs} group by 1`.execute(db),
    sql<{ day: string; sources: string[] }>`
      select to_char(day, 'YYYY-MM-DD') as day, array_agg(distinct source order by source) as sources from agent_coverage
      where site_id = ${site.id} and day between ${from}::date and ${to}::date group by 1`.execute(db),
  ]);

  const platforms = new Map<string, { visits: number; mix: VerificationMix }>();
  const types = new Map<string, number>();
  const mix = emptyMix();
  let total = 0;
  const visitsByDay = new Map<string, { visits: number; verified: number }>();
  // Classic search engines are shown beside the AI agents, never inside the AI totals.
  const searchEngines = new Map<string, number>();
  for (const r of byDay.rows) {
    const n = Number(r.visits);
    if (r.type === 'search-engine') {
      searchEngines.set(r.platform, (searchEngines.get(r.platform) ?? 0) + n);
      continue;
    }
    total += n;
    mix[r.verification] += n;
    const d = visitsByDay.get(r.day) ?? { visits: 0, verified: 0 };
    d.visits += n;
    if (r.verification === 'signature' || r.verification === 'ip' || r.verification === 'rdns')
      d.verified += n;
    visitsByDay.set(r.day, d);
    const p = platforms.get(r.platform) ?? { visits: 0, mix: emptyMix() };
    p.visits += n;
    p.mix[r.verification] += n;
    platforms.set(r.platform, p);
    const type = r.type || 'unknown';
    types.set(type, (types.get(type) ?? 0) + n);
  }
  const refTotal = referrals.rows.reduce((n, r) => n + Number(r.visits), 0);

  const trend = dailyTrend(start, w.until, visitsByDay, dailyRefs.rows, coverage.rows);

  return {
    siteId: Number(site.id),
    ...windowFields(w),
    visits: total,
    verifiedVisits: verifiedOf(mix),
    verifiedShare: pct(verifiedOf(mix), total),
    spoofedVisits: mix.spoofed,
    pendingVerification: pendingOf(byDay.rows),
    verification: mix,
    platforms: [...platforms]
      .map(([platform, p]) => ({
        platform,
        visits: p.visits,
        share: pct(p.visits, total),
        verifiedShare: pct(verifiedOf(p.mix), p.visits),
      }))
      .sort((a, b) => b.visits - a.visits || a.platform.localeCompare(b.platform)),
    types: [...types]
      .map(([type, visits]) => ({ type, visits, share: pct(visits, total) }))
      .sort((a, b) => b.visits - a.visits),
    searchEngines: {
      visits: [...searchEngines.values()].reduce((a, b) => a + b, 0),
      platforms: [...searchEngines]
        .map(([platform, visits]) => ({ platform, visits }))
        .sort((a, b) => b.visits - a.visits || a.platform.localeCompare(b.platform)),
    },
    aiReferrals: {
      visits: refTotal,
      platforms: referrals.rows.map((r) => ({ platform: r.platform, visits: Number(r.visits) })),
    },
    topPages: pages.rows.map((r) => ({ path: r.path, url: pageUrl(site, r.path), visits: Number(r.visits) })),
    daily: trend,
    coverage: {
      daysCovered: trend.filter((d) => d.covered).length,
      daysMissing: trend.filter((d) => !d.covered).map((d) => d.date),
    },
  };
}

export const pageUrl = (site: Pick<AgentSite, 'url'>, path: string) => new URL(path, site.url).toString();

export interface EventFilters {
  platform?: string;
  type?: string;
  verification?: Verification;
  path?: string;
  limit: number;
  cursor?: string;
}

function decodeCursor(cursor: string): { time: string; hash: Buffer } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^(.+)\|([0-9a-f]{32})$/.exec(text);
  if (!m)
    throw badRequest('The cursor is not valid.', [
      { field: 'query.cursor', message: 'not a cursor from this API' },
    ]);
  return { time: m[1]!, hash: Buffer.from(m[2]!, 'hex') };
}

/** Newest first, keyset-paginated on (time, hash). */
export async function siteEvents(db: Kysely<Database>, site: AgentSite, f: EventFilters) {
  const after = f.cursor ? decodeCursor(f.cursor) : null;
  const { rows } = await sql<{
    t: string;
    time: Date;
    hash: Buffer;
    method: string;
    path: string;
    status: number | null;
    ip: string | null;
    user_agent: string;
    platform: string;
    agent: string;
    type: string;
    verification: Verification;
    confidence: number;
    source: string;
  }>`
    select time::text as t, time, hash, method, path, status, host(ip) as ip, user_agent, platform, agent, type,
      verification, confidence, source
    from agent_events
    where site_id = ${site.id}
      ${after ? sql`and (time, hash) < (${after.time}::timestamptz, ${after.hash}::bytea)` : sql``}
      ${f.platform ? sql`and platform = ${f.platform}` : sql``}
      ${f.type ? sql`and type = ${f.type}` : sql``}
      ${f.verification ? sql`and verification = ${f.verification}` : sql``}
      ${f.path ? sql`and path = ${f.path}` : sql``}
    order by time desc, hash desc
    limit ${f.limit + 1}`.execute(db);
  const page = rows.slice(0, f.limit);
  const last = page[page.length - 1];
  return {
    events: page.map((r) => ({
      id: r.hash.toString('hex'),
      timestamp: r.time.toISOString(),
      method: r.method,
      path: r.path,
      pageUrl: pageUrl(site, r.path),
      status: r.status,
      ip: r.ip,
      userAgent: r.user_agent,
      platform: r.platform,
      agent: r.agent || null,
      type: r.type || null,
      verification: r.verification,
      confidence: Math.round(r.confidence * 100) / 100,
      source: r.source,
    })),
    nextCursor:
      rows.length > f.limit && last
        ? Buffer.from(`${last.t}|${last.hash.toString('hex')}`).toString('base64url')
        : null,
  };
}

export async function siteAgents(db: Kysely<Database>, site: AgentSite, w: Window, f: TrafficFilter = {}) {
  const { rows } = await sql<{
    platform: string;
    agent: string;
    type: string;
    verification: Verification;
    visits: string;
    first_at: Date;
    last_at: Date;
  }>`
    select platform, agent, type, verification, sum(visits)::bigint as visits, min(first_at) as first_at, max(last_at) as last_at
    from ${agentDaySource(site, daySpan(w), f)} d group by 1, 2, 3, 4`.execute(db);
  interface Acc {
    visits: number;
    first: Date;
    last: Date;
    mix: VerificationMix;
  }
  const add = (acc: Acc | undefined, r: (typeof rows)[number]): Acc => {
    const a = acc ?? { visits: 0, first: r.first_at, last: r.last_at, mix: emptyMix() };
    const n = Number(r.visits);
    a.visits += n;
    a.mix[r.verification] += n;
    if (r.first_at < a.first) a.first = r.first_at;
    if (r.last_at > a.last) a.last = r.last_at;
    return a;
  };
  const platforms = new Map<string, Acc>();
  const agents = new Map<string, { platform: string; agent: string; type: string; acc: Acc }>();
  let total = 0;
  for (const r of rows) {
    total += Number(r.visits);
    platforms.set(r.platform, add(platforms.get(r.platform), r));
    const k = `${r.platform}\u0000${r.agent}`;
    const e = agents.get(k);
    agents.set(k, { platform: r.platform, agent: r.agent, type: r.type, acc: add(e?.acc, r) });
  }
  const view = (a: Acc) => ({
    visits: a.visits,
    share: pct(a.visits, total),
    firstSeen: a.first.toISOString(),
    lastSeen: a.last.toISOString(),
    verifiedShare: pct(verifiedOf(a.mix), a.visits),
    verification: a.mix,
  });
  return {
    siteId: Number(site.id),
    ...windowFields(w),
    visits: total,
    platforms: [...platforms]
      .map(([platform, a]) => ({
        platform,
        ...view(a),
        agents: [...agents.values()]
          .filter((x) => x.platform === platform)
          .map((x) => ({ agent: x.agent || null, type: x.type || null, ...view(x.acc) }))
          .sort((x, y) => y.visits - x.visits),
      }))
      .sort((a, b) => b.visits - a.visits || a.platform.localeCompare(b.platform)),
  };
}

/** Latest citability score per page URL, from finished agent-readability scans. */
export async function citabilityOf(db: Kysely<Database>, urls: string[]) {
  if (urls.length === 0) return new Map<string, { score: number; scannedAt: string }>();
  const { rows } = await sql<{ url: string; score: number | null; finished_at: Date }>`
    select distinct on (url) url, finished_at,
      (jsonb_path_query_first(results, '$."agent-readability".dimensions[*] ? (@.id == "citability").score') #>> '{}')::int as score
    from scans where url = any(${urls}::text[]) and status = 'done' and results ? 'agent-readability'
    order by url, finished_at desc`.execute(db);
  return new Map(
    rows
      .filter((r) => r.score !== null)
      .map((r) => [r.url, { score: r.score!, scannedAt: r.finished_at.toISOString() }]),
  );
}

interface PagePlatformRow {
  path: string;
  platform: string;
  visits: string;
  errors: string;
  not_found: string;
  total: string;
}

/** The `limit` most visited pages of the window split by platform, most visited first. */
async function rankedPageRows(
  db: Kysely<Database>,
  site: AgentSite,
  w: Window,
  f: TrafficFilter,
  limit: number,
): Promise<PagePlatformRow[]> {
  const span = daySpan(w); // the day grain of the page rollups, as siteStats
  if (!openAndUnfiltered(w, f)) {
    const { rows } = await sql<PagePlatformRow>`
      with c as (
        select path, platform, sum(visits)::bigint as visits, sum(errors)::bigint as errors,
          sum(not_found)::bigint as not_found
        from ${pagePlatformSource(site, span, f)} s group by 1, 2
      ), top as (
        select path, sum(visits)::bigint as total from c group by path order by total desc, path limit ${limit}
      )
      select c.*, top.total from c join top using (path) order by top.total desc, c.path, c.visits desc`.execute(
      db,
    );
    return rows;
  }
  // Rank on the per-path table, then split only the ranked pages by platform.
  const { rows } = await sql<PagePlatformRow>`
    with top as (
      select path, visits as total from agent_path_totals(${site.id}, ${span.from}::date)
      order by total desc, path limit ${limit}
    )
    select p.path, p.platform, sum(p.visits)::bigint as visits, sum(p.errors)::bigint as errors,
      sum(p.not_found)::bigint as not_found, top.total
    from top join agent_page_rollups p
      on p.site_id = ${site.id} and p.path = top.path and p.day >= ${span.from}::date
    group by p.path, p.platform, top.total
    order by top.total desc, p.path, visits desc`.execute(db);
  return rows;
}

export async function sitePages(
  db: Kysely<Database>,
  site: AgentSite,
  w: Window,
  limit: number,
  f: TrafficFilter = {},
) {
  await foldPages(db, site.id);
  const rows = await rankedPageRows(db, site, w, f, limit);
  const pages = new Map<
    string,
    { path: string; visits: number; errors: number; notFound: number; platforms: Record<string, number> }
  >();
  for (const r of rows) {
    const p = pages.get(r.path) ?? { path: r.path, visits: 0, errors: 0, notFound: 0, platforms: {} };
    p.visits += Number(r.visits);
    p.errors += Number(r.errors);
    p.notFound += Number(r.not_found);
    p.platforms[r.platform] = Number(r.visits);
    pages.set(r.path, p);
  }
  const list = [...pages.values()];
  const cit = await citabilityOf(
    db,
    list.map((p) => pageUrl(site, p.path)),
  );
  return {
    siteId: Number(site.id),
    ...windowFields(w),
    pages: list.map((p, i) => ({
      rank: i + 1,
      path: p.path,
      url: pageUrl(site, p.path),
      visits: p.visits,
      errors: p.errors,
      notFound: p.notFound,
      platforms: p.platforms,
      citability: cit.get(pageUrl(site, p.path)) ?? null,
    })),
  };
}

/**
 * Agent visits per UTC day and platform in the window, from the rollups (the console's
 * "visits over time by platform" chart). Days without rows are absent; siteStats().daily says which
 * days are covered.
 */
export async function siteDailyByPlatform(
  db: Kysely<Database>,
  site: AgentSite,
  w: Window,
  f: TrafficFilter = {},
) {
  const { rows } = await sql<{ day: string; platform: string; visits: string }>`
    select to_char(day, 'YYYY-MM-DD') as day, platform, sum(visits)::bigint as visits
    from ${agentDaySource(site, daySpan(w), f)} d group by 1, 2 order by 1, 2`.execute(db);
  return rows.map((r) => ({ date: r.day, platform: r.platform, visits: Number(r.visits) }));
}
