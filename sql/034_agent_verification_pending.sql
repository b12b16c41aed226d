-- Reverse DNS never holds up ingestion: a visit that only a reverse look-up can verify is stored
-- at once as `pending`; the verify_agent_visits job looks up each distinct (agent, address) once
-- and moves its events (and their rollups) to `rdns`, `spoofed` (a definite answer outside the
-- vendor's domains) or `unverified` (the resolver told nothing: retried later, never spoofed).
alter table agent_events drop constraint agent_events_verification_check;
alter table agent_events add constraint agent_events_verification_check
  check (verification in ('signature', 'ip', 'rdns', 'none', 'pending', 'unverified', 'spoofed'));

-- What the job settles: only unsettled events are in it. The job finds its work from the pending
-- rows and from agent_rdns_checks' due retries, never by scanning the unverified ones.
create index agent_events_unsettled_idx on agent_events (agent, ip)
  where verification in ('pending', 'unverified');

-- One look-up per (agent, address): its verdict, reused by later events of the same pair (a
-- definite one for a day, see shared/agent-verification/pending.ts) and, for `unverified`, when to
-- ask again (backing off with each failed attempt).
create table agent_rdns_checks (
  agent text not null,
  ip inet not null,
  platform text not null,                          -- whose documented domains the look-up used
  verdict text not null check (verdict in ('rdns', 'spoofed', 'unverified')),
  attempts integer not null default 1,
  checked_at timestamptz not null default now(),
  retry_at timestamptz,
  primary key (agent, ip)
);
create index agent_rdns_checks_retry_idx on agent_rdns_checks (retry_at) where retry_at is not null;
