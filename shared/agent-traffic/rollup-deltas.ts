import { type RawBuilder, sql } from 'kysely';

/**
 * The CTEs that move stored events between rollup rows when their label or verification changes
 * (relabel.ts, verify-pending.ts): `delta`, `hourly`, `daily` and, with `pages`, `pages`. They read
 * a CTE named `moved` that the statement defines before them: one row per changed event with its
 * site_id, time, path and status, its label and verification now (platform, agent, type,
 * verification) and before (old_platform, old_agent, old_type, old_verification).
 *
 * Each event counts +1 under its new row and -1 under its old one, summed per rollup row, so no
 * row is touched twice by the statement; rows are upserted in key order, as ingestion's are, which
 * keeps deadlocks with concurrent writers rare (the callers retry those). Rows left at zero visits
 * stay: the caller drops them.
 * `pages` appends the per-platform page deltas to agent_page_pending (folded later like
 * ingestion's); page counts have no verification, so only a label change needs them.
 */
export function rollupDeltaCtes(opts: { pages: boolean }): RawBuilder<unknown> {
  return sql`
    delta as (
      select site_id, time, path, platform, agent, type, verification,
        1 as n, (status >= 400)::int as err, (status = 404)::int as nf from moved
      union all
      select site_id, time, path, old_platform, old_agent, old_type, old_verification,
        -1, -(status >= 400)::int, -(status = 404)::int from moved
    ), hourly as (
      insert into agent_rollups as r (site_id, hour, platform, agent, type, verification, visits, errors, first_at, last_at)
      select site_id, date_trunc('hour', time), platform, agent, type, verification, sum(n), coalesce(sum(err), 0), min(time), max(time)
      from delta group by 1, 2, 3, 4, 5, 6 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6
      on conflict (site_id, hour, platform, agent, type, verification) do update set
        visits = r.visits + excluded.visits, errors = r.errors + excluded.errors,
        first_at = least(r.first_at, excluded.first_at), last_at = greatest(r.last_at, excluded.last_at)
    ), daily as (
      insert into agent_daily_rollups as r (site_id, day, platform, agent, type, verification, visits, errors, first_at, last_at)
      select site_id, (time at time zone 'UTC')::date, platform, agent, type, verification, sum(n), coalesce(sum(err), 0), min(time), max(time)
      from delta group by 1, 2, 3, 4, 5, 6 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6
      on conflict (site_id, day, platform, agent, type, verification) do update set
        visits = r.visits + excluded.visits, errors = r.errors + excluded.errors,
        first_at = least(r.first_at, excluded.first_at), last_at = greatest(r.last_at, excluded.last_at)
    )${opts.pages ? pagesCte : sql``}`;
}

const pagesCte = sql`, pages as (
      insert into agent_page_pending (site_id, day, path, platform, visits, errors, not_found)
      select site_id, (time at time zone 'UTC')::date, path, platform, sum(n), coalesce(sum(err), 0), coalesce(sum(nf), 0)
      from delta group by 1, 2, 3, 4 having sum(n) <> 0
    )`;
