-- Relabelling stored agent events with the catalogue in use (shared/agent-traffic/relabel.ts).
-- A run classifies each distinct user agent of the retention window once (agent_relabel_labels),
-- then walks the window one (site, UTC day) at a time, each in one transaction with its rollup
-- deltas and its progress: a run that dies continues after the last day it finished.
create table agent_relabel_runs (
  id bigserial primary key,
  catalogue text not null,                       -- the catalogue version the run labels with
  state text not null default 'running' check (state in ('running', 'done', 'superseded')),
  since timestamptz not null,                    -- start of the retention window it covers
  user_agents int not null,                      -- distinct user agents classified
  total_events bigint not null,
  done_events bigint not null default 0,
  changed_events bigint not null default 0,
  cursor_site bigint,                            -- the last (site, day) finished
  cursor_day date,
  started_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);
create index agent_relabel_runs_state_idx on agent_relabel_runs (state, id);

-- A run's label per user agent: what the classifier says now (agents only).
create table agent_relabel_labels (
  run_id bigint not null references agent_relabel_runs on delete cascade,
  user_agent text not null,
  platform text not null,
  agent text not null,
  type text not null,
  confidence real not null,
  primary key (run_id, user_agent)
);
