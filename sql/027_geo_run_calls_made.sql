-- Provider calls a GEO run has sent, over every attempt of its job: counted as each call goes
-- out, so a run retried after a crash refunds its reservation against all of its calls, not only
-- the retry's.
alter table geo_runs add column calls_made integer not null default 0;
