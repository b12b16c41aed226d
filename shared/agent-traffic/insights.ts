import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import { isAllowed } from '../scan-engine/parsers/robots-txt.ts';
import { foldPages } from './page-rollups.ts';
import { citabilityOf, pageUrl, siteStats, type Window, windowFields, windowStart } from './stats.ts';

// Prioritised recommendations from a site's agent traffic, each with its evidence and a fix.
// Everything is read from the rollups (and a bounded look at spoofed events for example
// addresses), so insights cost the same on a big site as on a small one.

export type Priority = 'high' | 'medium' | 'low';
export interface Insight {
  id: string;
  priority: Priority;
  title: string;
  evidence: string;
  fix: string;
  data: Record<string, unknown>;
}

const ORDER: Record<Priority, number> = { high: 0, medium: 1, low: 2 };

/** robots.txt of the site's newest scan, when one exists. */
async function latestRobots(db: Kysely<Database>, site: AgentSite): Promise<string | null> {
  const row = await db
    .selectFrom('scans')
    .select(sql<string | null>`artifacts -> 'RobotsTxt' ->> 'body'`.as('robots'))
    .where('url', '=', site.url)
    .where('status', '=', 'done')
    .orderBy('finished_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.robots ?? null;
}

/**
 * Up to 5 addresses per spoofed agent, from its newest spoofed requests: the events between the
 * first and the last spoofed request of its newest hour that had any, newest first, at most 100.
 * The (site, time) index walk is bounded by that hour however rare spoofing is. The bounds are
 * sent as values (one branch per agent), so each branch is planned for its own short range;
 * bounds taken from the rollups inside the same statement are unknown to the planner, which then
 * costs a walk of the whole window (and JIT-compiles the statement). Events past retention are gone:
 * no examples then (the count comes from the rollups).
 */
async function spoofedExamples(
  db: Kysely<Database>,
  site: AgentSite,
  agents: { platform: string; agent: string; first_at: string | null; last_at: string }[],
): Promise<string[][]> {
  const out = agents.map((): string[] => []);
  const branches = agents.flatMap((a, i) =>
    a.first_at === null
      ? []
      : [
          sql`(select ${i}::int as i, d.ip from (
            select distinct host(x.ip) as ip from (
              select e.ip from agent_events e
              where e.site_id = ${site.id} and e.time >= ${a.first_at}::timestamptz and e.time <= ${a.last_at}::timestamptz
                and e.verification = 'spoofed' and e.platform = ${a.platform} and e.agent = ${a.agent}
                and e.ip is not null
              order by e.time desc limit 100) x) d
            order by d.ip limit 5)`,
        ],
  );
  if (branches.length === 0) return out;
  const { rows } = await sql<{ i: number; ip: string }>`${sql.join(branches, sql` union all `)}`.execute(db);
  for (const r of rows) out[r.i]!.push(r.ip);
  for (const list of out) list.sort();
  return out;
}

type SiteStats = Awaited<ReturnType<typeof siteStats>>;
type AnswerErrorRow = { platform: string; agent: string; type: string; visits: string; errors: string };
type SpoofedRow = {
  platform: string;
  agent: string;
  visits: string;
  first_at: string | null;
  last_at: string;
};

/** Rollup reads every insight draws on, for the window starting at `since` (a UTC midnight). */
async function readInsightInputs(db: Kysely<Database>, site: AgentSite, w: Window, since: string) {
  const from = since.slice(0, 10);
  await foldPages(db, site.id); // the 404 and llms.txt insights read agent_path_totals
  const [answerErrors, spoofed, notFound, llms, robots, stats] = await Promise.all([
    sql<AnswerErrorRow>`
      select platform, agent, type, sum(visits)::bigint as visits, sum(errors)::bigint as errors
      from agent_rollup_days(${site.id}, ${since}::timestamptz)
      where type in ('search', 'browse') and verification <> 'spoofed'
      group by 1, 2, 3 having sum(errors) > 0 order by sum(errors) desc`.execute(db),
    // Counts from the rollups, as /stats' spoofedVisits. With each agent, the first and the last
    // time of its newest hour with spoofed requests (agent_rollups), which bound the look for
    // example addresses (spoofedExamples).
    sql<SpoofedRow>`
      with s as (
        select platform, agent, sum(visits)::bigint as visits, max(last_at) as last_at
        from agent_rollup_days(${site.id}, ${since}::timestamptz) where verification = 'spoofed'
        group by 1, 2
      )
      select s.platform, s.agent, s.visits, s.last_at::text as last_at,
        (select min(h.first_at) from agent_rollups h
         where h.site_id = ${site.id} and h.hour = date_trunc('hour', s.last_at)
           and h.platform = s.platform and h.agent = s.agent and h.verification = 'spoofed')::text as first_at
      from s order by s.visits desc, s.platform, s.agent`.execute(db),
    sql<{ path: string; not_found: string }>`
      select path, not_found from agent_path_totals(${site.id}, ${from}::date)
      where not_found > 0 order by not_found desc, path limit 10`.execute(db),
    sql<{ visits: string; not_found: string }>`
      select coalesce(sum(visits), 0)::bigint as visits, coalesce(sum(not_found), 0)::bigint as not_found
      from agent_path_totals(${site.id}, ${from}::date) where path = '/llms.txt'`.execute(db),
    latestRobots(db, site),
    siteStats(db, site, w),
  ]);
  return {
    answerErrors: answerErrors.rows,
    spoofed: spoofed.rows,
    notFound: notFound.rows,
    llms: llms.rows[0],
    robots,
    stats,
  };
}

/** 1. Answer agents (search, browse) refused or failing although robots.txt lets them in. */
function answerAgentErrors(
  site: AgentSite,
  rows: AnswerErrorRow[],
  robots: string | null,
  since: string,
): Insight[] {
  const out: Insight[] = [];
  for (const r of rows) {
    const visits = Number(r.visits);
    const errors = Number(r.errors);
    if (errors / visits < 0.1 || errors < 3) continue;
    const allowed = robots === null ? null : isAllowed(robots, r.agent || r.platform, pageUrl(site, '/'));
    if (allowed === false) continue; // blocked on purpose
    out.push({
      id: 'answer_agent_errors',
      priority: 'high',
      title: `${r.agent || r.platform} gets errors on ${Math.round((100 * errors) / visits)}% of its requests`,
      evidence: `${errors} of ${visits} requests by ${r.agent || r.platform} (${r.platform}, ${r.type}) answered 4xx/5xx since ${since}${allowed ? '; robots.txt allows it' : ''}.`,
      fix: 'Make sure your firewall, bot protection or CDN does not challenge or block this answer agent (allow-list its published ranges or verified signatures), and that the pages it asks for exist.',
      data: { platform: r.platform, agent: r.agent, type: r.type, visits, errors, robotsAllows: allowed },
    });
  }
  return out;
}

/** 2. Spoofed agents; `ips[i]` holds the example addresses of `rows[i]`. */
function spoofedAgents(rows: SpoofedRow[], ips: string[][]): Insight[] {
  const spoofedTotal = rows.reduce((n, r) => n + Number(r.visits), 0);
  if (spoofedTotal === 0) return [];
  return [
    {
      id: 'spoofed_agents',
      priority: spoofedTotal >= 100 ? 'high' : 'medium',
      title: `${spoofedTotal} requests claimed to be AI agents they were not`,
      evidence: rows
        .slice(0, 5)
        .map((r, i) => {
          const eg = ips[i]!.slice(0, 3);
          return `${r.agent || r.platform}: ${r.visits}${eg.length ? ` from e.g. ${eg.join(', ')}` : ''}`;
        })
        .join('; '),
      fix: 'These clients use a verifiable vendor’s user agent from addresses outside its published ranges. Do not exempt requests from rate limits or bot protection on the user agent alone: verify by IP range, reverse DNS or Web Bot Auth signature.',
      data: {
        visits: spoofedTotal,
        agents: rows.map((r, i) => ({
          platform: r.platform,
          agent: r.agent,
          visits: Number(r.visits),
          ips: ips[i]!,
        })),
      },
    },
  ];
}

/** 3. /llms.txt asked for but missing. */
function llmsTxtMissing(llms: { visits: string; not_found: string } | undefined): Insight[] {
  const llmsVisits = Number(llms?.visits ?? 0);
  const llmsMissing = Number(llms?.not_found ?? 0);
  if (llmsMissing === 0) return [];
  return [
    {
      id: 'llms_txt_missing',
      priority: 'medium',
      title: 'Agents ask for /llms.txt but it does not exist',
      evidence: `${llmsMissing} of ${llmsVisits} agent requests for /llms.txt answered 404.`,
      fix: 'Publish an /llms.txt that summarises the site and links its key pages in Markdown (see llmstxt.org).',
      data: { visits: llmsVisits, notFound: llmsMissing },
    },
  ];
}

/** 4. Pages agents fetch that 404 (/llms.txt has its own insight). */
function agent404s(notFound: { path: string; not_found: string }[]): Insight[] {
  const missing = notFound.filter((r) => r.path !== '/llms.txt');
  if (!missing.length) return [];
  const total = missing.reduce((n, r) => n + Number(r.not_found), 0);
  return [
    {
      id: 'agent_404s',
      priority: total >= 50 ? 'medium' : 'low',
      title: `Agents fetch ${missing.length} page${missing.length === 1 ? '' : 's'} that answer 404`,
      evidence: missing.map((r) => `${r.path} (${r.not_found})`).join(', '),
      fix: 'Redirect moved pages (301) to their new address, or fix the links that lead agents there (sitemaps, internal links, llms.txt).',
      data: { pages: missing.map((r) => ({ path: r.path, notFound: Number(r.not_found) })) },
    },
  ];
}

/** 5. Heavily crawled pages (the ten most visited) with weak citability. */
async function crawledButWeakCitability(db: Kysely<Database>, stats: SiteStats): Promise<Insight[]> {
  const top = stats.topPages.slice(0, 10);
  const cit = await citabilityOf(
    db,
    top.map((p) => p.url),
  );
  const weak = top.filter((p) => (cit.get(p.url)?.score ?? 101) < 50);
  if (!weak.length) return [];
  return [
    {
      id: 'crawled_but_weak_citability',
      priority: 'medium',
      title: `${weak.length} of your most-crawled pages are hard for answer engines to cite`,
      evidence: weak
        .map((p) => `${p.path}: ${p.visits} agent visits, citability ${cit.get(p.url)!.score}`)
        .join('; '),
      fix: 'Give these pages self-contained answers: a clear heading per question, short factual paragraphs, lists and tables, dates and sources.',
      data: {
        pages: weak.map((p) => ({ path: p.path, visits: p.visits, citability: cit.get(p.url)!.score })),
      },
    },
  ];
}

/** 6. Training crawlers dominating. */
function trainingDominates(stats: SiteStats): Insight[] {
  const training = stats.types.find((t) => t.type === 'training');
  if (!training || stats.visits < 100 || training.share < 60) return [];
  return [
    {
      id: 'training_dominates',
      priority: 'low',
      title: `Training crawlers make ${training.share}% of agent traffic`,
      evidence: `${training.visits} of ${stats.visits} agent visits came from training crawlers, which bring no citations or referrals.`,
      fix: 'If the load matters, disallow training-only agents (e.g. GPTBot, CCBot, Bytespider) in robots.txt while keeping search and browse agents (OAI-SearchBot, ChatGPT-User, PerplexityBot, Claude-SearchBot) allowed.',
      data: { visits: training.visits, share: training.share },
    },
  ];
}

/** 7. Coverage gaps: days without data inside a window that has some. */
function coverageGaps(stats: SiteStats): Insight[] {
  const { daysMissing, daysCovered } = stats.coverage;
  if (!daysMissing.length || daysCovered === 0) return [];
  return [
    {
      id: 'coverage_gaps',
      priority: 'low',
      title: `${daysMissing.length} day(s) in the window have no data`,
      evidence: `No collect batch or imported log covers ${daysMissing.slice(0, 10).join(', ')}${daysMissing.length > 10 ? ', …' : ''}.`,
      fix: 'Check that your server-side collector is running, or import the access logs of those days with `sightline logs import`. Statistics show these days as gaps, not as zero traffic.',
      data: { daysMissing },
    },
  ];
}

export async function siteInsights(db: Kysely<Database>, site: AgentSite, w: Window) {
  // The window starts on the UTC midnight siteStats uses (windowStart): the path totals are daily.
  const since = windowStart(w).toISOString();
  const input = await readInsightInputs(db, site, w, since);
  const ips = await spoofedExamples(db, site, input.spoofed);
  const out: Insight[] = [
    ...answerAgentErrors(site, input.answerErrors, input.robots, since),
    ...spoofedAgents(input.spoofed, ips),
    ...llmsTxtMissing(input.llms),
    ...agent404s(input.notFound),
    ...(await crawledButWeakCitability(db, input.stats)),
    ...trainingDominates(input.stats),
    ...coverageGaps(input.stats),
  ];
  // Stable sort: within a priority, insights keep the numbered order above.
  out.sort((a, b) => ORDER[a.priority] - ORDER[b.priority]);
  return {
    siteId: Number(site.id),
    ...windowFields(w),
    insights: out,
  };
}
