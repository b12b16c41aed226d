-- Scans: one row per gathered-and-scored URL. Artifacts are stored with the result so a scan can
-- be rescored offline against a new model version (and any stored scan is a test fixture).
create table scans (
  id text primary key,                          -- sc_ + random: unguessable, safe to poll without a key
  url text not null,                            -- normalised target URL
  domain text not null,
  mode text not null check (mode in ('quick', 'full')),
  status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
  phase text,                                   -- progress for pollers and operators
  account_id bigint references accounts (id) on delete set null,
  error jsonb,                                  -- {code, message} when failed
  artifacts jsonb,
  results jsonb,                                -- model id -> scored model (with model version)
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
-- Serves the TTL cache and in-flight de-duplication: newest scan of a URL in a mode.
create index scans_url_mode_idx on scans (url, mode, created_at desc);
create index scans_created_idx on scans (created_at);
