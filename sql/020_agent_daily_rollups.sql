-- Agent visits per UTC day beside the hourly rollups. /stats, /agents, the console's chart and the
-- answer-agent insight summed agent_rollups hour by hour: 24 rows a day for every platform, agent,
-- type and verification seen, 6,500 rows for 30 days and 19,000 for 90 on the bench's site. A
-- window now takes the hours of its first, partial day from agent_rollups and every later day from
-- agent_daily_rollups (agent_rollup_days). Ingest batches upsert both tables in their one
-- statement: a batch's rows per day are as few as its rows per hour.

create table agent_daily_rollups (
  site_id bigint not null,
  day date not null,
  platform text not null,
  agent text not null,
  type text not null,
  verification text not null,
  visits bigint not null,
  errors bigint not null,
  first_at timestamptz not null,
  last_at timestamptz not null,
  primary key (site_id, day, platform, agent, type, verification)
) with (fillfactor = 70); -- counters updated in place, as sql/015's rollups
insert into agent_daily_rollups (site_id, day, platform, agent, type, verification, visits, errors, first_at, last_at)
select site_id, (hour at time zone 'UTC')::date, platform, agent, type, verification,
  sum(visits), sum(errors), min(first_at), max(last_at)
from agent_rollups group by 1, 2, 3, 4, 5, 6;

-- The first UTC midnight at or after the hour of p_since: where a window's whole days begin.
create function agent_first_day(p_since timestamptz) returns date
language sql stable parallel safe as $$
  select ((date_trunc('hour', p_since) at time zone 'UTC') - interval '1 microsecond')::date + 1
$$;

-- A site's visits per UTC day, platform, agent, type and verification from the hour of p_since
-- on. A plain SQL function, inlined into the caller's query (its filters reach both scans).
create function agent_rollup_days(p_site bigint, p_since timestamptz)
returns table (
  day date, platform text, agent text, type text, verification text,
  visits bigint, errors bigint, first_at timestamptz, last_at timestamptz
)
language sql stable parallel safe as $$
  select (h.hour at time zone 'UTC')::date, h.platform, h.agent, h.type, h.verification,
    sum(h.visits)::bigint, sum(h.errors)::bigint, min(h.first_at), max(h.last_at)
  from agent_rollups h
  where h.site_id = p_site and h.hour >= date_trunc('hour', p_since)
    and h.hour < agent_first_day(p_since)::timestamp at time zone 'UTC'
  group by 1, 2, 3, 4, 5
  union all
  select d.day, d.platform, d.agent, d.type, d.verification, d.visits, d.errors, d.first_at, d.last_at
  from agent_daily_rollups d
  where d.site_id = p_site and d.day >= agent_first_day(p_since)
$$;
