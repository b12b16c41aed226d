import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import { isAllowed } from '../scan/parsers/robots-txt.ts';
import { foldPages } from './page-rollups.ts';
import { citabilityOf, pageUrl, siteStats, type Window } from './stats.ts';

// Prioritised recommendations from a site's agent traffic, each with its evidence and a fix.
// Everything is read from the rollups (and a bounded look at spoofed events), so insights cost
// the same on a big site as on a small one.

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

export async function siteInsights(db: Kysely<Database>, site: AgentSite, w: Window) {
  const since = w.since.toISOString();
  await foldPages(db, site.id); // the 404 and llms.txt insights read agent_path_totals
  const [answerErrors, spoofed, notFound, llms, robots, stats] = await Promise.all([
    sql<{ platform: string; agent: string; type: string; visits: string; errors: string }>`
      select platform, agent, type, sum(visits)::bigint as visits, sum(errors)::bigint as errors
      from agent_rollup_days(${site.id}, ${since}::timestamptz)
      where type in ('search', 'browse') and verification <> 'spoofed'
      group by 1, 2, 3 having sum(errors) > 0 order by sum(errors) desc`.execute(db),
    sql<{ platform: string; agent: string; visits: string; ips: string[] }>`
      select platform, agent, count(*)::bigint as visits, (array_agg(distinct host(ip)))[1:5] as ips
      from (select platform, agent, ip from agent_events
            where site_id = ${site.id} and time >= ${since}::timestamptz and verification = 'spoofed'
            order by time desc limit 10000) s
      group by 1, 2 order by visits desc`.execute(db),
    sql<{ path: string; not_found: string }>`
      select path, not_found from agent_path_totals(${site.id}, (${since}::timestamptz at time zone 'UTC')::date)
      where not_found > 0 order by not_found desc, path limit 10`.execute(db),
    sql<{ visits: string; not_found: string }>`
      select coalesce(sum(visits), 0)::bigint as visits, coalesce(sum(not_found), 0)::bigint as not_found
      from agent_path_totals(${site.id}, (${since}::timestamptz at time zone 'UTC')::date) where path = '/llms.txt'`.execute(
      db,
    ),
    latestRobots(db, site),
    siteStats(db, site, w),
  ]);
  const out: Insight[] = [];

  // 1. Answer agents (search, browse) refused or failing although robots.txt lets them in.
  for (const r of answerErrors.rows) {
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

  // 2. Spoofed agents.
  const spoofedTotal = spoofed.rows.reduce((n, r) => n + Number(r.visits), 0);
  if (spoofedTotal > 0) {
    out.push({
      id: 'spoofed_agents',
      priority: spoofedTotal >= 100 ? 'high' : 'medium',
      title: `${spoofedTotal} requests claimed to be AI agents they were not`,
      evidence: spoofed.rows
        .slice(0, 5)
        .map((r) => `${r.agent || r.platform}: ${r.visits} from e.g. ${r.ips.slice(0, 3).join(', ')}`)
        .join('; '),
      fix: 'These clients use a verifiable vendor’s user agent from addresses outside its published ranges. Do not exempt requests from rate limits or bot protection on the user agent alone: verify by IP range, reverse DNS or Web Bot Auth signature.',
      data: {
        visits: spoofedTotal,
        agents: spoofed.rows.map((r) => ({
          platform: r.platform,
          agent: r.agent,
          visits: Number(r.visits),
          ips: r.ips,
        })),
      },
    });
  }

  // 3. /llms.txt asked for but missing.
  const llmsVisits = Number(llms.rows[0]?.visits ?? 0);
  const llmsMissing = Number(llms.rows[0]?.not_found ?? 0);
  if (llmsMissing > 0) {
    out.push({
      id: 'llms_txt_missing',
      priority: 'medium',
      title: 'Agents ask for /llms.txt but it does not exist',
      evidence: `${llmsMissing} of ${llmsVisits} agent requests for /llms.txt answered 404.`,
      fix: 'Publish an /llms.txt that summarises the site and links its key pages in Markdown (see llmstxt.org).',
      data: { visits: llmsVisits, notFound: llmsMissing },
    });
  }

  // 4. Pages agents fetch that 404.
  const missing = notFound.rows.filter((r) => r.path !== '/llms.txt');
  if (missing.length) {
    const total = missing.reduce((n, r) => n + Number(r.not_found), 0);
    out.push({
      id: 'agent_404s',
      priority: total >= 50 ? 'medium' : 'low',
      title: `Agents fetch ${missing.length} page${missing.length === 1 ? '' : 's'} that answer 404`,
      evidence: missing.map((r) => `${r.path} (${r.not_found})`).join(', '),
      fix: 'Redirect moved pages (301) to their new address, or fix the links that lead agents there (sitemaps, internal links, llms.txt).',
      data: { pages: missing.map((r) => ({ path: r.path, notFound: Number(r.not_found) })) },
    });
  }

  // 5. Heavily crawled pages with weak citability.
  const top = stats.topPages.slice(0, 10);
  const cit = await citabilityOf(
    db,
    top.map((p) => p.url),
  );
  const weak = top.filter((p) => (cit.get(p.url)?.score ?? 101) < 50);
  if (weak.length) {
    out.push({
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
    });
  }

  // 6. Training crawlers dominating.
  const training = stats.types.find((t) => t.type === 'training');
  if (training && stats.visits >= 100 && training.share >= 60) {
    out.push({
      id: 'training_dominates',
      priority: 'low',
      title: `Training crawlers make ${training.share}% of agent traffic`,
      evidence: `${training.visits} of ${stats.visits} agent visits came from training crawlers, which bring no citations or referrals.`,
      fix: 'If the load matters, disallow training-only agents (e.g. GPTBot, CCBot, Bytespider) in robots.txt while keeping search and browse agents (OAI-SearchBot, ChatGPT-User, PerplexityBot, Claude-SearchBot) allowed.',
      data: { visits: training.visits, share: training.share },
    });
  }

  // 7. Coverage gaps.
  if (stats.coverage.daysMissing.length && stats.coverage.daysCovered > 0) {
    out.push({
      id: 'coverage_gaps',
      priority: 'low',
      title: `${stats.coverage.daysMissing.length} day(s) in the window have no data`,
      evidence: `No collect batch or imported log covers ${stats.coverage.daysMissing.slice(0, 10).join(', ')}${stats.coverage.daysMissing.length > 10 ? ', …' : ''}.`,
      fix: 'Check that your server-side collector is running, or import the access logs of those days with `sightline logs import`. Statistics show these days as gaps, not as zero traffic.',
      data: { daysMissing: stats.coverage.daysMissing },
    });
  }

  out.sort((a, b) => ORDER[a.priority] - ORDER[b.priority]);
  return {
    siteId: Number(site.id),
    since: w.since.toISOString(),
    until: w.until.toISOString(),
    insights: out,
  };
}
