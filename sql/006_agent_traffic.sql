-- Agent traffic (variant B): registered sites, the agent events they report (partitioned by
-- month), rollups kept up to date as events arrive, AI referrals, import coverage, and the
-- weighted rate-limit buckets that meter ingestion in events per hour.

create table agent_sites (
  id bigserial primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  tracking_id text not null unique,                 -- site_ + random: public, names the site in collect batches
  url text not null,                                -- normalised, with scheme
  domain text not null,
  label text not null,
  ingest_token_hash bytea not null unique,          -- SHA-256 of the ingest token; the token is shown once
  ingest_token_prefix text not null,
  created_at timestamptz not null default now(),
  unique (account_id, url)
);
create index agent_sites_account_idx on agent_sites (account_id, id);

-- One row per agent request. No foreign key (it would cost a look-up per row at ingest speed):
-- removing a site deletes its rows explicitly. `hash` identifies the request (the log line, or
-- the normalised collect item), so a re-import or a retried batch stores nothing twice.
create table agent_events (
  site_id bigint not null,
  time timestamptz not null,
  hash bytea not null,
  source text not null check (source in ('collect', 'import')),
  method text not null,
  path text not null,
  status smallint,
  ip inet,
  user_agent text not null,
  platform text not null,
  agent text not null,                             -- catalogue token; '' for an unnamed AI agent
  type text not null,                              -- training | search | browse | '' (unknown)
  verification text not null check (verification in ('signature', 'ip', 'rdns', 'none', 'spoofed')),
  confidence real not null,
  ingested_at timestamptz not null default now()
) partition by range (time);
-- Serves idempotency (on conflict do nothing) and the newest-first cursor of /events.
create unique index agent_events_site_time_hash_idx on agent_events (site_id, time, hash);

-- Month partitions are made on demand by the ingest pipeline (and kept by retention).
create function agent_events_partition(p_time timestamptz) returns text
language plpgsql as $$
declare
  v_from timestamptz := date_trunc('month', p_time at time zone 'UTC') at time zone 'UTC';
  v_name text := 'agent_events_' || to_char(v_from at time zone 'UTC', 'YYYYMM');
begin
  if to_regclass(v_name) is null then
    perform pg_advisory_xact_lock(hashtextextended('agent_events_partition', 11));
    if to_regclass(v_name) is null then
      execute format('create table %I partition of agent_events for values from (%L) to (%L)',
        v_name, v_from, v_from + interval '1 month');
    end if;
  end if;
  return v_name;
end $$;

-- Per site, hour, platform, agent, type and verification: what /stats and /agents read.
create table agent_rollups (
  site_id bigint not null,
  hour timestamptz not null,
  platform text not null,
  agent text not null,
  type text not null,
  verification text not null,
  visits bigint not null,
  errors bigint not null,                          -- answered 4xx/5xx
  first_at timestamptz not null,
  last_at timestamptz not null,
  primary key (site_id, hour, platform, agent, type, verification)
);

-- Per site, day, path and platform: the per-platform split of /pages. Paths get a day grain (not an
-- hour) to keep the table small on sites with many pages.
create table agent_page_rollups (
  site_id bigint not null,
  day date not null,
  path text not null,
  platform text not null,
  visits bigint not null,
  errors bigint not null,
  not_found bigint not null,
  primary key (site_id, day, path, platform)
);
create index agent_page_rollups_path_idx on agent_page_rollups (site_id, path, day);

-- Per site, day and path (all platforms): what ranks pages (top pages, /pages, the 404 insight),
-- a sixth of the rows of the table above on a site that several platforms crawl.
create table agent_path_rollups (
  site_id bigint not null,
  day date not null,
  path text not null,
  visits bigint not null,
  errors bigint not null,
  not_found bigint not null,
  primary key (site_id, day, path)
);

-- Human visits referred by answer engines (chatgpt.com, perplexity.ai, ...): counted, not agent events.
create table ai_referrals (
  site_id bigint not null,
  time timestamptz not null,
  hash bytea not null,
  platform text not null,
  referer_host text not null,
  path text not null,
  primary key (site_id, time, hash)
);
create table ai_referral_rollups (
  site_id bigint not null,
  day date not null,
  platform text not null,
  path text not null,
  visits bigint not null,
  primary key (site_id, day, platform, path)
);

-- Which days have data from which source (collect, import:<format>), so a day without data is
-- shown as a gap, not as zero traffic. `requests` counts every request seen (humans included).
create table agent_coverage (
  site_id bigint not null,
  day date not null,
  source text not null,
  requests bigint not null,
  updated_at timestamptz not null default now(),
  primary key (site_id, day, source)
);

-- Weighted rolling-hour buckets (ingestion counts events, not calls): one row per bucket and
-- minute, so a check sums at most 61 rows however busy the site is.
create table rate_limit_weights (
  bucket text not null,
  minute timestamptz not null,
  weight bigint not null,
  primary key (bucket, minute)
);

create function rate_limit_take_n(p_bucket text, p_n integer, p_limit bigint, p_window interval)
returns table (allowed boolean, remaining bigint, reset_at timestamptz)
language plpgsql as $$
declare
  v_now timestamptz;
  v_used bigint;
  v_oldest timestamptz;
begin
  perform pg_advisory_xact_lock(hashtextextended(p_bucket, 7));
  v_now := clock_timestamp();
  delete from rate_limit_weights w where w.bucket = p_bucket and w.minute <= v_now - p_window - interval '1 minute';
  select coalesce(sum(w.weight), 0), min(w.minute) into v_used, v_oldest
    from rate_limit_weights w where w.bucket = p_bucket and w.minute > v_now - p_window - interval '1 minute';
  if v_used + p_n <= p_limit then
    insert into rate_limit_weights (bucket, minute, weight) values (p_bucket, date_trunc('minute', v_now), p_n)
      on conflict (bucket, minute) do update set weight = rate_limit_weights.weight + excluded.weight;
    return query select true, p_limit - v_used - p_n, coalesce(v_oldest, date_trunc('minute', v_now)) + p_window + interval '1 minute';
  else
    return query select false, greatest(p_limit - v_used, 0), coalesce(v_oldest, date_trunc('minute', v_now)) + p_window + interval '1 minute';
  end if;
end $$;
