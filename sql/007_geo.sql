-- GEO (variant A): canonical prompts of an account, stored GEO checks of monitored sites, and
-- AI-visibility / share-of-voice runs against answer engines with every answer kept as evidence.

create table geo_prompts (
  id bigserial primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  prompt text not null check (length(prompt) between 1 and 1000),
  label text not null check (length(label) between 1 and 200),
  created_at timestamptz not null default now(),
  unique (account_id, prompt)
);
create index geo_prompts_account_idx on geo_prompts (account_id, id);

-- One GEO reading of a monitored site: the six-signal check and the citability score, both
-- computed from one stored scan (quick mode).
create table geo_checks (
  id bigserial primary key,
  site_id bigint not null references monitored_sites (id) on delete cascade,
  scan_id text references scans (id) on delete set null,
  url text not null,
  overall_score integer not null check (overall_score between 0 and 85),
  grade text not null,
  result jsonb not null,                              -- GEO check (interface.md)
  citability jsonb not null,                          -- citability score (interface.md)
  checked_at timestamptz not null default now(),
  unique (site_id, scan_id)
);
create index geo_checks_site_time_idx on geo_checks (site_id, checked_at desc, id desc);

-- A visibility or share-of-voice run: a job asks every prompt of the account GEO_RUNS_PER_PROMPT
-- times per configured provider. Answers are written with the run's outcome in ONE transaction,
-- so a run is either complete with its evidence or has none.
create table geo_runs (
  id text primary key,                                -- gr_<random>
  account_id bigint not null references accounts (id) on delete cascade,
  site_id bigint not null references monitored_sites (id) on delete cascade,
  kind text not null check (kind in ('visibility', 'sov')),
  trigger text not null check (trigger in ('api', 'schedule', 'mcp')),
  status text not null default 'queued'
    check (status in ('queued', 'running', 'done', 'failed', 'skipped')),
  providers text[] not null,
  runs_per_prompt integer not null check (runs_per_prompt between 1 and 20),
  -- Provider calls reserved against the account's monthly budget (set once, so a retried job
  -- does not reserve twice).
  calls_reserved integer,
  -- The sites evaluated: own site first, then the competitors (sov), as {id, url, label, isOwn}.
  sites jsonb not null default '[]',
  summary jsonb,                                      -- per-provider errors, totals
  error jsonb,                                        -- {code, message} when failed or skipped
  schedule_slot date,                                 -- the Sunday a scheduled run serves
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index geo_runs_site_time_idx on geo_runs (site_id, kind, created_at desc);
-- One scheduled run per site, kind and Sunday: a re-run fan-out finds it instead of asking again.
create unique index geo_runs_schedule_once_idx on geo_runs (site_id, kind, schedule_slot)
  where schedule_slot is not null;

create table geo_answers (
  id bigserial primary key,
  run_id text not null references geo_runs (id) on delete cascade,
  prompt_id bigint not null,                          -- the prompt may be deleted later; text kept
  prompt text not null,
  label text not null,
  provider text not null,
  model text not null,
  iteration integer not null,
  answer text not null,
  citations jsonb not null,                           -- [{url, title, position}] in answer order
  sources jsonb not null,                             -- [{url, title}] searched but not necessarily cited
  usage jsonb not null,                               -- {inputTokens, outputTokens, totalTokens}
  created_at timestamptz not null default now(),
  unique (run_id, prompt_id, provider, iteration)
);

-- Provider calls per account and calendar month (UTC), against GEO_MONTHLY_CALL_BUDGET.
create table geo_call_usage (
  account_id bigint not null references accounts (id) on delete cascade,
  month date not null,
  calls integer not null default 0,
  primary key (account_id, month)
);
