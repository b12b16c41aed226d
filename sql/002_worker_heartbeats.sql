-- Worker liveness. graphile-worker only frees a dead worker's locked jobs after 4 hours; workers
-- beat here every few seconds and the reap_dead_workers task unlocks jobs held by silent ones.
create table worker_heartbeats (
  worker_id text primary key,
  process text not null,          -- hostname:pid, for operators
  started_at timestamptz not null default now(),
  last_seen timestamptz not null default now()
);
create index worker_heartbeats_last_seen_idx on worker_heartbeats (last_seen);
