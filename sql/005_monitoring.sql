-- Monitoring (variant A): sites watched for a subscriber (own sites and tracked competitors), one
-- row per scheduled scan, and the alerts those scans raised.

create table monitored_sites (
  id bigserial primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  url text not null,                                  -- normalised, with scheme
  label text not null,
  site_type text not null check (site_type in ('own', 'competitor')),
  status text not null default 'active' check (status in ('active', 'paused')),
  webhook_url text,                                   -- own sites only: competitors never alert
  alert_threshold integer not null default 10 check (alert_threshold between 1 and 100),
  last_scanned_at timestamptz,
  -- Due-ness is row state, not a count of cron ticks: the fan-out claims rows due by now and moves
  -- this forward in the same statement, so however many ticks were missed a site runs once.
  next_scan_due_at timestamptz not null default now(),
  -- Overall score before an open score_drop / site_down incident; null while healthy. `recovered`
  -- fires when a scan climbs back to within alert_threshold of it.
  incident_baseline integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (account_id, url),
  check (site_type = 'own' or webhook_url is null)
);
-- The fan-out's probe: active sites in due order.
create index monitored_sites_due_idx on monitored_sites (next_scan_due_at) where status = 'active';

create table monitor_scans (
  id bigserial primary key,
  site_id bigint not null references monitored_sites (id) on delete cascade,
  -- The schedule slot this scan serves. One scan per slot, so a re-run of the job (crash, retry)
  -- finds its row instead of scanning and alerting twice.
  due_at timestamptz not null,
  scan_id text references scans (id) on delete set null, -- artifacts and the other models' results
  status text not null check (status in ('ok', 'down')),
  overall_score integer not null check (overall_score between 0 and 100),
  dimension_scores jsonb not null,                    -- {seo, speed, copy, social, local, competitor?, ai}
  issues jsonb not null,                              -- array of strings
  error jsonb,                                        -- {code, message} when down
  model_version text not null,
  scanned_at timestamptz not null default now(),
  unique (site_id, due_at)
);
create index monitor_scans_site_time_idx on monitor_scans (site_id, scanned_at desc, id desc);

create table monitor_alerts (
  id bigserial primary key,
  site_id bigint not null references monitored_sites (id) on delete cascade,
  monitor_scan_id bigint not null references monitor_scans (id) on delete cascade,
  alert_type text not null check (alert_type in ('score_drop', 'dimension_drop', 'site_down', 'recovered')),
  dimension text,                                     -- dimension_drop only
  previous_score integer not null,
  current_score integer not null,
  delta integer not null,
  message text not null,
  scanned_at timestamptz not null,
  -- pending: to send; no_webhook: recorded for the status page only; delivered / failed: one attempt made.
  delivery_status text not null default 'pending'
    check (delivery_status in ('pending', 'delivered', 'failed', 'no_webhook')),
  delivery_detail text,
  attempted_at timestamptz,
  created_at timestamptz not null default now()
);
-- Never twice for the same scan: one alert per scan, type and dimension.
create unique index monitor_alerts_once_idx on monitor_alerts (monitor_scan_id, alert_type, coalesce(dimension, ''));
create index monitor_alerts_site_time_idx on monitor_alerts (site_id, created_at desc);

-- The first scheduled slot of a site at least half a period after p_after. Each site has
-- a fixed phase within its period (a hash of its id), so thousands of sites spread evenly over
-- the day (agency) or week (growth) instead of starting in the same minute; a site caught up
-- after downtime returns to its own phase.
create function monitor_next_due(p_site bigint, p_period_seconds bigint, p_after timestamptz)
returns timestamptz
language sql stable as $$
  -- One expression (no FROM, not strict), so the planner inlines it into the fan-out's UPDATE.
  select to_timestamp(
    ((hashint8(p_site)::bigint % p_period_seconds + p_period_seconds) % p_period_seconds)::float8
    + p_period_seconds * ceil(
        (extract(epoch from p_after)::float8 + p_period_seconds / 2.0
         - ((hashint8(p_site)::bigint % p_period_seconds + p_period_seconds) % p_period_seconds)) / p_period_seconds))
$$;
