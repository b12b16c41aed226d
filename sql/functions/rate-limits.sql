-- Rate limits: a rolling hour per bucket, exact across every process that shares the database.
-- Re-applied by the migrator on every migrate (shared/db/migrate.ts); the tables are schema, in
-- the migrations (rate_limit_buckets, rate_limit_seconds).
--
-- How a bucket is stored:
--   rate_limit_buckets  one row per bucket: `hits`, the sum of its stored seconds. The row is also
--                       the bucket's lock: every writer of a bucket locks it first.
--   rate_limit_seconds  one row per second in which the bucket was hit, with that second's calls.
-- The calls of second S count until S + 1 s + 1 hour (X-RateLimit-Reset names that moment), so no
-- true rolling hour ever holds more than the limit. The database clock, read after the lock,
-- decides. A take reads the bucket row, deletes the seconds that left the window (each once) and
-- adds to the current second: the same few rows however many calls the hour holds.
--
-- Whoever locks several buckets in one transaction (admit_keys_counted, rate_limit_sweep_all)
-- locks them in bucket-name order, so they cannot deadlock.
--
-- Every statement here has an index made for it (the primary keys), so sequential scans are priced
-- out (a plan cached while the tables were nearly empty must not read them whole later), and each
-- statement is planned once per connection (generic plans), not on every call.

-- Counts up to p_n calls in a bucket (granted while the limit allows): the count before them, how
-- many were granted, and when the oldest counted second leaves the window (epoch seconds).
-- Hits are bookkeeping: their commit need not wait for the WAL flush (a crash forgets at most the
-- last moment's calls); locks and visibility are unchanged, so counts stay exact.
create or replace function rate_limit_count(
  p_bucket text, p_n integer, p_limit integer, p_window interval,
  out count_before integer, out granted integer, out reset_epoch double precision
)
language plpgsql
set enable_seqscan = off
set plan_cache_mode = force_generic_plan
as $$
declare
  v_now timestamptz;
  v_bound timestamptz; -- seconds at or before it have left the window
  v_oldest timestamptz;
  v_expired integer := 0;
begin
  perform set_config('synchronous_commit', 'off', true);
  loop
    select b.hits into count_before from rate_limit_buckets b where b.bucket = p_bucket for update;
    exit when found;
    insert into rate_limit_buckets (bucket) values (p_bucket) on conflict do nothing;
  end loop;
  v_now := clock_timestamp();
  v_bound := v_now - p_window - interval '1 second';
  select min(s.second) into v_oldest from rate_limit_seconds s where s.bucket = p_bucket;
  if v_oldest <= v_bound then
    with gone as (
      delete from rate_limit_seconds s where s.bucket = p_bucket and s.second <= v_bound returning s.hits
    ) select coalesce(sum(g.hits), 0) into v_expired from gone g;
    count_before := count_before - v_expired;
    select min(s.second) into v_oldest from rate_limit_seconds s where s.bucket = p_bucket;
  end if;
  granted := least(greatest(p_limit - count_before, 0), p_n);
  if granted > 0 then
    insert into rate_limit_seconds as s (bucket, second, hits)
    values (p_bucket, date_trunc('second', v_now), granted)
    on conflict (bucket, second) do update set hits = s.hits + excluded.hits;
  end if;
  if granted > 0 or v_expired > 0 then
    update rate_limit_buckets set hits = count_before + granted where bucket = p_bucket;
  end if;
  reset_epoch := extract(epoch from coalesce(v_oldest, date_trunc('second', v_now)) + interval '1 second' + p_window);
end $$;

-- One call in a bucket: allowed or not, the calls left after it, and the reset.
create or replace function rate_limit_take(p_bucket text, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language sql as $$
  select c.granted = 1,
         case when c.granted = 1 then p_limit - c.count_before - 1 else 0 end,
         to_timestamp(c.reset_epoch)
    from rate_limit_count(p_bucket, 1, p_limit, p_window) c
$$;

-- Read-only: the stored total less the seconds that have left the window since the last take.
create or replace function rate_limit_peek(p_bucket text, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language plpgsql stable
set enable_seqscan = off
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_bound timestamptz := v_now - p_window - interval '1 second';
  v_count integer;
  v_oldest timestamptz;
begin
  select coalesce((select b.hits from rate_limit_buckets b where b.bucket = p_bucket), 0)
       - (select coalesce(sum(s.hits), 0)::integer from rate_limit_seconds s
           where s.bucket = p_bucket and s.second <= v_bound)
    into v_count;
  select s.second into v_oldest from rate_limit_seconds s
   where s.bucket = p_bucket and s.second > v_bound order by s.bucket, s.second limit 1;
  return query select v_count < p_limit, greatest(p_limit - v_count, 0),
                      coalesce(v_oldest + interval '1 second', v_now) + p_window;
end $$;

-- Keyed calls in one statement: each distinct key of a batch once (p_hashes) with its number of
-- calls (p_counts), answered with one row per known key: the key, its account as
-- GET /api/v1/account shows it, and for a live key the count before this take and the number
-- granted (the caller answers the key's calls in arrival order from those two). A key's limit is
-- its own, else its tier's from p_tier_limits. Unknown keys get no row; revoked keys are not counted.
create or replace function admit_keys_counted(p_hashes bytea[], p_counts integer[], p_tier_limits jsonb, p_window interval)
returns table (
  ord integer, id bigint, account_id bigint, variant text, tier text, rate_limit integer,
  revoked boolean, last_used_at timestamptz,
  count_before integer, granted integer, reset_epoch double precision,
  email text, account_tier text, beta_flags jsonb, notification_preferences jsonb,
  account_created_at timestamptz, plan text
)
language plpgsql
set enable_seqscan = off
set plan_cache_mode = force_generic_plan
as $$
declare
  k record;
  v_before integer;
  v_granted integer;
  v_reset double precision;
begin
  for k in
    select array_position(p_hashes, a.key_hash) as ord, a.id, a.account_id, a.variant, a.tier, a.revoked_at,
           a.last_used_at, coalesce(a.rate_limit_per_hour, (p_tier_limits ->> a.tier::text)::integer) as lim,
           'key:' || a.id as bucket,
           acc.email, acc.tier as acc_tier, acc.beta_flags, acc.notification_preferences,
           acc.created_at as acc_created_at, s.plan
      from api_keys a
      join accounts acc on acc.id = a.account_id
      left join subscriptions s on s.account_id = acc.id and s.status = 'active'
     where a.key_hash = any(p_hashes)
     order by 'key:' || a.id -- the lock order
  loop
    v_before := null;
    v_granted := null;
    v_reset := null;
    if k.revoked_at is null then
      select c.count_before, c.granted, c.reset_epoch into v_before, v_granted, v_reset
        from rate_limit_count(k.bucket, p_counts[k.ord], k.lim, p_window) c;
    end if;
    return query select k.ord, k.id::bigint, k.account_id::bigint, k.variant::text, k.tier::text, k.lim,
                        k.revoked_at is not null, k.last_used_at, v_before, v_granted, v_reset,
                        k.email::text, k.acc_tier::text, k.beta_flags, k.notification_preferences,
                        k.acc_created_at, k.plan::text;
  end loop;
end $$;

-- The hourly prune: for every bucket, in the lock order, deletes the seconds older than
-- p_older_than (the window plus some slack) and drops the bucket when nothing is left.
-- Returns the number of calls deleted.
create or replace function rate_limit_sweep_all(p_older_than interval)
returns integer
language plpgsql
set enable_seqscan = off
set plan_cache_mode = force_generic_plan
as $$
declare
  b record;
  v_gone integer;
  v_deleted integer := 0;
begin
  for b in select r.bucket from rate_limit_buckets r order by r.bucket loop
    perform 1 from rate_limit_buckets r where r.bucket = b.bucket for update;
    with gone as (
      delete from rate_limit_seconds s
       where s.bucket = b.bucket and s.second < clock_timestamp() - p_older_than - interval '1 second'
      returning s.hits
    ) select coalesce(sum(g.hits), 0) into v_gone from gone g;
    update rate_limit_buckets r set hits = greatest(r.hits - v_gone, 0) where r.bucket = b.bucket;
    delete from rate_limit_buckets r where r.bucket = b.bucket and r.hits = 0;
    v_deleted := v_deleted + v_gone;
  end loop;
  return v_deleted;
end $$;
