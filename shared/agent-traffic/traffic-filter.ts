import { type RawBuilder, sql } from 'kysely';
import type { AgentSite } from '../db/tables/agent-traffic.ts';

// The dashboard's click-to-filter (Plausible's model): one agent, one page, one AI referrer, or any
// mix of them, narrows every windowed question in stats.ts. Each filter narrows what it can name:
// `page` narrows agent visits and AI referrals to that page; `agent` narrows agent visits (AI
// referrals are people, not agents, and stay as they are); `referrer` narrows AI referrals to that
// answer engine and agent visits to the pages it sent people to in the window. Unfiltered counts
// come from the rollups; filtered agent counts from the raw events (kept for
// AGENT_EVENTS_RETENTION_DAYS), which hold the agent and the page together.

export interface TrafficFilter {
  /** An agent's catalogue token (`GPTBot`), as agent_events.agent. */
  agent?: string;
  /** A page key (pageKey: the path, no query but a feed's), as agent_events.path. */
  page?: string;
  /** An answer engine's platform (`ChatGPT`), as ai_referral_rollups.platform. */
  referrer?: string;
}

/** The days a window counts, as UTC dates: from its first through its last, both included. */
export interface DaySpan {
  from: string;
  to: string;
}

export const isFiltered = (f: TrafficFilter) => Boolean(f.agent || f.page || f.referrer);

/** The filter's conditions on the referral tables (ai_referrals, ai_referral_rollups). */
export function referralConditions(f: TrafficFilter): RawBuilder<unknown> {
  return sql`${f.referrer ? sql`and platform = ${f.referrer}` : sql``} ${f.page ? sql`and path = ${f.page}` : sql``}`;
}

/** The filter's conditions on agent_events (alias-free; used inside a subquery over it). */
function eventConditions(site: AgentSite, span: DaySpan, f: TrafficFilter): RawBuilder<unknown> {
  const referred = f.referrer
    ? sql`and path in (select r.path from ai_referral_rollups r where r.site_id = ${site.id}
        and r.day between ${span.from}::date and ${span.to}::date and r.platform = ${f.referrer})`
    : sql``;
  return sql`site_id = ${site.id}
    and time >= ${span.from}::date::timestamp at time zone 'UTC'
    and time < (${span.to}::date + 1)::timestamp at time zone 'UTC'
    ${f.agent ? sql`and agent = ${f.agent}` : sql``}
    ${f.page ? sql`and path = ${f.page}` : sql``}
    ${referred}`;
}

/**
 * Agent visits per (UTC day, platform, agent, type, verification) in the span, as a subquery with
 * agent_rollup_days' columns: the rollups when unfiltered, the raw events when filtered.
 */
export function agentDaySource(site: AgentSite, span: DaySpan, f: TrafficFilter): RawBuilder<unknown> {
  if (!isFiltered(f))
    return sql`(select * from agent_rollup_days(${site.id}, ${span.from}::date::timestamp at time zone 'UTC')
      where day <= ${span.to}::date)`;
  return sql`(select (time at time zone 'UTC')::date as day, platform, agent, type, verification,
      count(*)::bigint as visits, (count(*) filter (where status >= 400))::bigint as errors,
      min(time) as first_at, max(time) as last_at
    from agent_events where ${eventConditions(site, span, f)} group by 1, 2, 3, 4, 5)`;
}

/**
 * Agent visits per (page, platform) in the span, as a subquery (path, platform, visits, errors,
 * not_found): the page rollups plus the pending counts (sql/018) when unfiltered, the raw events
 * when filtered.
 */
export function pagePlatformSource(site: AgentSite, span: DaySpan, f: TrafficFilter): RawBuilder<unknown> {
  if (!isFiltered(f))
    return sql`(select path, platform, visits, errors, not_found from agent_page_rollups
        where site_id = ${site.id} and day between ${span.from}::date and ${span.to}::date
      union all
      select path, platform, visits, errors, not_found from agent_page_pending
        where site_id = ${site.id}::bigint and day between ${span.from}::date and ${span.to}::date)`;
  return sql`(select path, platform, count(*)::bigint as visits,
      (count(*) filter (where status >= 400))::bigint as errors,
      (count(*) filter (where status = 404))::bigint as not_found
    from agent_events where ${eventConditions(site, span, f)} group by 1, 2)`;
}
