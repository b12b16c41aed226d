-- Variant B registered sites: citability scans on demand and every Monday 03:00 UTC, webhook
-- endpoints managed through /api/v1/webhooks, and the threshold alerts scheduled scans raise.

-- The first weekly slot (Monday 03:00 UTC) strictly after p_after.
create function b_sites_next_slot(p_after timestamptz) returns timestamptz
language sql stable as $$
  select case when m > p_after then m else m + interval '7 days' end
    from (select (date_trunc('week', p_after at time zone 'UTC') + interval '3 hours') at time zone 'UTC' as m) s
$$;

-- Due-ness of the weekly scan is row state, as for monitoring: the fan-out claims rows due by now
-- and moves each to the next Monday in the same statement, so however many ticks (or Mondays)
-- were missed a site is scanned once.
create table b_site_schedules (
  site_id bigint primary key references agent_sites (id) on delete cascade,
  next_scan_due_at timestamptz not null
);
create index b_site_schedules_due_idx on b_site_schedules (next_scan_due_at);

insert into b_site_schedules (site_id, next_scan_due_at)
  select id, b_sites_next_slot(now()) from agent_sites;

-- Every registered site gets its schedule row, whoever registers it (CLI, console).
create function b_site_schedule_insert() returns trigger
language plpgsql as $$
begin
  insert into b_site_schedules (site_id, next_scan_due_at)
    values (new.id, b_sites_next_slot(now()))
    on conflict (site_id) do nothing;
  return new;
end $$;
create trigger agent_sites_b_schedule after insert on agent_sites
  for each row execute function b_site_schedule_insert();

-- The scans of a registered site: on-demand requests (to keep one pending per site) and scheduled
-- scans, one per weekly slot (a re-run of the job finds its row instead of scanning twice).
create table b_site_scans (
  id bigserial primary key,
  site_id bigint not null references agent_sites (id) on delete cascade,
  trigger text not null check (trigger in ('on_demand', 'scheduled')),
  due_at timestamptz,                                  -- scheduled: the slot served
  scan_id text references scans (id) on delete set null,
  status text check (status in ('ok', 'down')),        -- scheduled: set when recorded
  overall_score integer,
  dimension_scores jsonb,                              -- {structure, citability, ...}
  created_at timestamptz not null default now(),
  unique (site_id, due_at),
  check ((trigger = 'scheduled') = (due_at is not null))
);
create index b_site_scans_site_idx on b_site_scans (site_id, trigger, id desc);

-- Webhook endpoints of a B account. Each has its own Standard Webhooks secret (whsec_...), shown
-- on creation and on rotation. site_ids null means every site of the account; threshold holds
-- integers 1-100 keyed by overall or a dimension id.
create table webhook_endpoints (
  id bigserial primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  url text not null,
  events text[] not null,
  site_ids bigint[],
  threshold jsonb not null,
  enabled boolean not null default true,
  secret text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_account_idx on webhook_endpoints (account_id, id);

-- Which thresholds an endpoint has alerted on and not yet seen recover (metric: overall, a
-- dimension id, or down). `recovered` fires only for these.
create table webhook_open_alerts (
  webhook_id bigint not null references webhook_endpoints (id) on delete cascade,
  site_id bigint not null references agent_sites (id) on delete cascade,
  metric text not null,
  threshold integer,
  opened_at timestamptz not null default now(),
  primary key (webhook_id, site_id, metric)
);

-- Alerts scheduled scans raised, one per scan, endpoint, metric and type, sent once each.
create table b_site_alerts (
  id bigserial primary key,
  site_scan_id bigint not null references b_site_scans (id) on delete cascade,
  webhook_id bigint not null references webhook_endpoints (id) on delete cascade,
  site_id bigint not null references agent_sites (id) on delete cascade,
  metric text not null,
  alert_type text not null check (alert_type in ('score_drop', 'dimension_drop', 'site_down', 'recovered')),
  dimension text,
  previous_score integer not null,
  current_score integer not null,
  delta integer not null,
  message text not null,
  scanned_at timestamptz not null,
  delivery_status text not null default 'pending' check (delivery_status in ('pending', 'delivered', 'failed')),
  delivery_id text,                                    -- webhook_deliveries.id
  created_at timestamptz not null default now(),
  unique (site_scan_id, webhook_id, metric, alert_type)
);
create index b_site_alerts_pending_idx on b_site_alerts (site_id) where delivery_status = 'pending';
