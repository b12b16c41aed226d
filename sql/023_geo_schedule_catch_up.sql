-- GEO: the Sunday fan-out catches up after a missed tick, and runs give back the budget they
-- reserved but did not use.

-- The Sunday a scheduled visibility run serves: the most recent Sunday 04:00 UTC at or before t.
-- geo_fanout runs every few minutes, so a tick after 04:00 (workers down, a failed fan-out) still
-- files its runs under the right Sunday.
create function geo_schedule_slot(t timestamptz) returns date
language sql stable as $$
  select d - (extract(isodow from d)::int % 7)
    from (select ((t at time zone 'UTC') - interval '4 hours')::date as d) s
$$;

-- Sundays whose fan-out went through every due site. Every later tick of that week finds its slot
-- here with one primary-key lookup instead of probing every site again.
create table geo_schedule_slots (
  slot date primary key,
  completed_at timestamptz not null default now()
);

-- The month a run's reservation was charged to (a run may finish in the next one), and the calls
-- it gave back when it finished. calls_refunded is set in the same statement that returns the
-- calls to geo_call_usage: null means not yet, so a re-run of the finishing step refunds nothing.
alter table geo_runs
  add column calls_month date,
  add column calls_refunded integer;
