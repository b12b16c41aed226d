-- One scans-history table and one alerts table for every site watched on a schedule: A's
-- monitored sites (own and competitor) and B's registered agent sites. A row belongs to exactly
-- one site, named by the foreign key of its kind; the other key is null.

create table watch_scans (
  id bigserial primary key,
  monitored_site_id bigint references monitored_sites (id) on delete cascade,
  agent_site_id bigint references agent_sites (id) on delete cascade,
  -- scheduled: one row per schedule slot (due_at), so a re-run of the job finds its row instead of
  -- scanning and alerting twice. on_demand (B only): a requested scan, to keep one pending per site.
  trigger text not null default 'scheduled' check (trigger in ('on_demand', 'scheduled')),
  due_at timestamptz,
  scan_id text references scans (id) on delete set null, -- artifacts and the other models' results
  scan_mode text check (scan_mode in ('quick', 'full')),
  status text check (status in ('ok', 'down')),           -- set once a scheduled scan is recorded
  overall_score integer check (overall_score between 0 and 100),
  dimension_scores jsonb,
  issues jsonb,                                           -- A: array of strings
  error jsonb,                                            -- A: {code, message} when down
  model_version text,                                     -- A: the monitoring model's version
  scanned_at timestamptz not null default now(),
  check (num_nonnulls(monitored_site_id, agent_site_id) = 1),
  check ((trigger = 'scheduled') = (due_at is not null)),
  -- A's history rows are complete scheduled scans.
  check (monitored_site_id is null or (trigger = 'scheduled' and status is not null
         and overall_score is not null and dimension_scores is not null and issues is not null
         and model_version is not null)),
  unique (monitored_site_id, due_at),
  unique (agent_site_id, due_at)
);
create index watch_scans_monitored_time_idx on watch_scans (monitored_site_id, scanned_at desc, id desc)
  where monitored_site_id is not null;
create index watch_scans_agent_site_idx on watch_scans (agent_site_id, trigger, id desc)
  where agent_site_id is not null;

create table watch_alerts (
  id bigserial primary key,
  monitored_site_id bigint references monitored_sites (id) on delete cascade,
  agent_site_id bigint references agent_sites (id) on delete cascade,
  watch_scan_id bigint not null references watch_scans (id) on delete cascade,
  -- B: the endpoint the alert goes to and the threshold metric (overall, a dimension id, down).
  webhook_id bigint references webhook_endpoints (id) on delete cascade,
  metric text,
  alert_type text not null check (alert_type in ('score_drop', 'dimension_drop', 'site_down', 'recovered')),
  dimension text,
  previous_score integer not null,
  current_score integer not null,
  delta integer not null,
  message text not null,
  scanned_at timestamptz not null,
  -- pending: to send; no_webhook (A): kept for the status page only; delivered / failed: one attempt made.
  delivery_status text not null default 'pending'
    check (delivery_status in ('pending', 'delivered', 'failed', 'no_webhook')),
  delivery_detail text,
  delivery_id text,                                       -- webhook_deliveries.id
  attempted_at timestamptz,
  created_at timestamptz not null default now(),
  check (num_nonnulls(monitored_site_id, agent_site_id) = 1),
  check (agent_site_id is null or (webhook_id is not null and metric is not null))
);
-- Never twice for the same scan: A one per type and dimension, B one per endpoint, metric and type.
create unique index watch_alerts_monitored_once_idx
  on watch_alerts (watch_scan_id, alert_type, coalesce(dimension, '')) where monitored_site_id is not null;
create unique index watch_alerts_endpoint_once_idx
  on watch_alerts (watch_scan_id, webhook_id, metric, alert_type) where agent_site_id is not null;
create index watch_alerts_monitored_time_idx on watch_alerts (monitored_site_id, created_at desc)
  where monitored_site_id is not null;
create index watch_alerts_agent_pending_idx on watch_alerts (agent_site_id)
  where agent_site_id is not null and delivery_status = 'pending';
create index watch_alerts_scan_idx on watch_alerts (watch_scan_id);

-- Move the rows. A's ids are kept; B's get new ids from the shared sequences.
insert into watch_scans (id, monitored_site_id, trigger, due_at, scan_id, scan_mode, status, overall_score,
                         dimension_scores, issues, error, model_version, scanned_at)
  select id, site_id, 'scheduled', due_at, scan_id, scan_mode, status, overall_score,
         dimension_scores, issues, error, model_version, scanned_at
    from monitor_scans;
select setval('watch_scans_id_seq', greatest((select max(id) from watch_scans), 1));

create temporary table b_scan_moves as
  select id as old_id, nextval('watch_scans_id_seq') as new_id from b_site_scans;
insert into watch_scans (id, agent_site_id, trigger, due_at, scan_id, status, overall_score,
                         dimension_scores, scanned_at)
  select m.new_id, b.site_id, b.trigger, b.due_at, b.scan_id, b.status, b.overall_score,
         b.dimension_scores, b.created_at
    from b_site_scans b join b_scan_moves m on m.old_id = b.id;

insert into watch_alerts (id, monitored_site_id, watch_scan_id, alert_type, dimension, previous_score,
                          current_score, delta, message, scanned_at, delivery_status, delivery_detail,
                          attempted_at, created_at)
  select id, site_id, monitor_scan_id, alert_type, dimension, previous_score,
         current_score, delta, message, scanned_at, delivery_status, delivery_detail,
         attempted_at, created_at
    from monitor_alerts;
-- Delivery dedupe keys are the alert's id ('b:' + id for B): moved and future B alerts take ids above
-- every old B id, so none reuses a key an old alert was sent under.
select setval('watch_alerts_id_seq',
  greatest((select max(id) from watch_alerts), (select max(id) from b_site_alerts), 1));

insert into watch_alerts (agent_site_id, watch_scan_id, webhook_id, metric, alert_type, dimension,
                          previous_score, current_score, delta, message, scanned_at, delivery_status,
                          delivery_id, created_at)
  select a.site_id, m.new_id, a.webhook_id, a.metric, a.alert_type, a.dimension,
         a.previous_score, a.current_score, a.delta, a.message, a.scanned_at, a.delivery_status,
         a.delivery_id, a.created_at
    from b_site_alerts a join b_scan_moves m on m.old_id = a.site_scan_id
   order by a.id;

drop table b_site_alerts;
drop table b_site_scans;
drop table monitor_alerts;
drop table monitor_scans;
drop table b_scan_moves;

-- Each variant's view of the watch, in the columns its queries and contract shapes use.
create view monitor_scans as
  select id, monitored_site_id as site_id, due_at, scan_id, status, overall_score, dimension_scores,
         issues, error, model_version, scan_mode, scanned_at
    from watch_scans where monitored_site_id is not null;
create view monitor_alerts as
  select id, monitored_site_id as site_id, watch_scan_id as monitor_scan_id, alert_type, dimension,
         previous_score, current_score, delta, message, scanned_at, delivery_status, delivery_detail,
         attempted_at, created_at
    from watch_alerts where monitored_site_id is not null;
create view b_site_scans as
  select id, agent_site_id as site_id, trigger, due_at, scan_id, status, overall_score, dimension_scores,
         scanned_at as created_at
    from watch_scans where agent_site_id is not null;
create view b_site_alerts as
  select id, watch_scan_id as site_scan_id, webhook_id, agent_site_id as site_id, metric, alert_type,
         dimension, previous_score, current_score, delta, message, scanned_at, delivery_status, delivery_id,
         created_at
    from watch_alerts where agent_site_id is not null;
