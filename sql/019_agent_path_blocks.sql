-- Windowed page rankings without summing every day of the window. /stats' top pages, /pages,
-- the 404 and llms.txt insights and agent_correlation sum agent_path_rollups per path from a day
-- on (their windows are open towards now). On a site with 2,000 crawled paths a 30-day window is
-- 60,000 rows to sum, 90 days 180,000: half of /stats' time on the bench's 10,000,000-event site.
-- agent_path_blocks holds the same counts per 8-day block (days counted from 1970-01-01), so a
-- window is at most 7 leading days from agent_path_rollups plus its whole blocks: 30 days become
-- about 7 rows a path instead of 30, 90 days about 15 instead of 90. agent_fold_pages keeps it
-- with the daily rollups in one statement. Harness (system Postgres, 10,000,000 events): top 10
-- pages over 30 days 55 -> 11 ms.

-- The 8-day block of a day (floor division: days before 1970 get negative blocks).
create function agent_day_block(p_day date) returns int
language sql immutable parallel safe as $$ select floor((p_day - date '1970-01-01') / 8.0)::int $$;

create table agent_path_blocks (
  site_id bigint not null,
  block int not null,
  path text not null,
  visits bigint not null,
  errors bigint not null,
  not_found bigint not null,
  primary key (site_id, block, path)
) with (fillfactor = 70); -- counters updated in place, as sql/015's rollups
insert into agent_path_blocks (site_id, block, path, visits, errors, not_found)
select site_id, agent_day_block(day), path, sum(visits), sum(errors), sum(not_found)
from agent_path_rollups group by 1, 2, 3;

-- Per path, a site's visits, errors and 404s from p_since on: the days before the first whole
-- block from the daily rollups, the rest from the blocks. A plain SQL function, inlined into the
-- caller's query, so a filter on path (the llms.txt insight) reaches both scans.
create function agent_path_totals(p_site bigint, p_since date)
returns table (path text, visits bigint, errors bigint, not_found bigint)
language sql stable parallel safe as $$
  select t.path, sum(t.visits)::bigint, sum(t.errors)::bigint, sum(t.not_found)::bigint from (
    select d.path, d.visits, d.errors, d.not_found from agent_path_rollups d
    where d.site_id = p_site and d.day >= p_since
      and d.day < date '1970-01-01' + 8 * (agent_day_block(p_since - 1) + 1)
    union all
    select b.path, b.visits, b.errors, b.not_found from agent_path_blocks b
    where b.site_id = p_site and b.block > agent_day_block(p_since - 1)
  ) t group by t.path
$$;

-- Pending page counts partitioned by site: a reader's fold (delete ... where site_id) scanned
-- every site's pending rows, 4 ms a read with another site's 50,000 rows pending.
alter table agent_page_pending rename to agent_page_pending_unpartitioned;
create table agent_page_pending (
  site_id bigint not null,
  day date not null,
  path text not null,
  platform text not null,
  visits bigint not null,
  errors bigint not null,
  not_found bigint not null
) partition by hash (site_id);
do $$
begin
  for i in 0..15 loop
    execute format('create table %I partition of agent_page_pending for values with (modulus 16, remainder %s)',
      'agent_page_pending_' || i, i);
  end loop;
end $$;
insert into agent_page_pending select * from agent_page_pending_unpartitioned;
drop table agent_page_pending_unpartitioned;

-- As in sql/018, with the 8-day blocks upserted from the same folded counts.
create or replace function agent_fold_pages(p_site bigint, p_wait boolean) returns bigint
language plpgsql as $$
declare
  v_rows bigint;
begin
  if p_wait then
    perform pg_advisory_xact_lock(hashtextextended('agent_fold_pages', p_site));
  elsif not pg_try_advisory_xact_lock(hashtextextended('agent_fold_pages', p_site)) then
    return 0;
  end if;
  -- A new statement, so a new snapshot: it sees every count committed before the lock was had.
  with d as (
    delete from agent_page_pending where site_id = p_site
    returning day, path, platform, visits, errors, not_found
  ), a as (
    select day, path, platform, sum(visits) as visits, sum(errors) as errors, sum(not_found) as not_found, count(*) as n
    from d group by 1, 2, 3
  ), pages as (
    insert into agent_page_rollups as p (site_id, day, path, platform, visits, errors, not_found)
    select p_site, day, path, platform, visits, errors, not_found from a order by 2, 3, 4
    on conflict (site_id, day, path, platform) do update set
      visits = p.visits + excluded.visits, errors = p.errors + excluded.errors, not_found = p.not_found + excluded.not_found
  ), paths as (
    insert into agent_path_rollups as p (site_id, day, path, visits, errors, not_found)
    select p_site, day, path, sum(visits), sum(errors), sum(not_found) from a group by 2, 3 order by 2, 3
    on conflict (site_id, day, path) do update set
      visits = p.visits + excluded.visits, errors = p.errors + excluded.errors, not_found = p.not_found + excluded.not_found
  ), blocks as (
    insert into agent_path_blocks as p (site_id, block, path, visits, errors, not_found)
    select p_site, agent_day_block(day), path, sum(visits), sum(errors), sum(not_found) from a group by 2, 3 order by 2, 3
    on conflict (site_id, block, path) do update set
      visits = p.visits + excluded.visits, errors = p.errors + excluded.errors, not_found = p.not_found + excluded.not_found
  )
  select coalesce(sum(n), 0) into v_rows from a;
  return v_rows;
end $$;
