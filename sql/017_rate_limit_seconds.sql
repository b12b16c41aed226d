-- Rate-limit hits counted per second instead of one row per call. A bucket keeps one row per
-- second in which it was hit (rate_limit_seconds: how many calls that second) next to its running
-- total (rate_limit_buckets.hits, the sum of its stored seconds), so a batch of calls for one key
-- updates one second row and the bucket row instead of inserting a row (and an index entry) per
-- call, and the expiry deletes one row per second of hits instead of one per hit.
--
-- The window is still a rolling hour, exact across processes, in whole seconds: the calls of
-- second S count until S + 1 s + 1 hour, which is the moment X-RateLimit-Reset names (it is
-- whole epoch seconds, rounded up, so it already said S + 1 s + 1 hour for any call within S). A
-- call counts between one hour and one hour and one second, never less: the limit is never
-- exceeded in any true rolling hour.
--
-- The rules are unchanged: the bucket row is the lock every writer of a bucket's seconds takes
-- first (takes, batches, the sweep; several buckets in name order), the database clock decides
-- the window, expired seconds are deleted once, and no statement reads more than a bucket's
-- newest or expired rows, whatever its number of hits.
create table rate_limit_seconds (
  bucket text not null,
  second timestamptz not null, -- date_trunc('second', the calls' time)
  hits integer not null check (hits > 0),
  primary key (bucket, second)
);

-- Existing hits keep counting: each bucket's hits grouped by second (the running totals in
-- rate_limit_buckets already are their sums). A hit now counts until the end of its second plus
-- the hour, at most one second longer than before.
insert into rate_limit_seconds (bucket, second, hits)
  select bucket, date_trunc('second', hit_at), count(*) from rate_limit_hits group by 1, 2;
update rate_limit_buckets b set hits = coalesce((select sum(s.hits) from rate_limit_seconds s where s.bucket = b.bucket), 0);

drop function admit_key(bytea, jsonb, interval); -- unused since admit_keys (sql/016)
drop function rate_limit_take(text, integer, interval);
drop function rate_limit_peek(text, integer, interval);
drop function rate_limit_sweep_all(interval);
drop function rate_limit_sweep(text, interval);
drop function admit_keys(bytea[], jsonb, interval);
drop table rate_limit_hits;

-- Takes p_n calls (granted while the limit allows) from a bucket whose row the caller has
-- locked and whose stored total is p_count: deletes the seconds that left the window, adds the
-- granted calls to the current second. Returns the count before this take, the number granted,
-- and when the oldest counted second leaves the window. Callers hold the bucket's lock.
-- (admit_keys below does the same inline: a nested call costs a batch more than the take.)
create function rate_limit_take_locked(
  p_bucket text, p_count integer, p_n integer, p_limit integer, p_window interval,
  out count_before integer, out granted integer, out reset_at timestamptz
)
language plpgsql as $$
declare
  v_now timestamptz := clock_timestamp(); -- read after the lock: the database clock decides
  v_second timestamptz := date_trunc('second', v_now);
  v_bound timestamptz := v_now - p_window - interval '1 second'; -- seconds at or before it have left
  v_expired integer := 0;
  v_oldest timestamptz;
  v_newest timestamptz;
begin
  -- The bucket's first and last second: two index entries.
  select min(s.second), max(s.second) into v_oldest, v_newest from rate_limit_seconds s where s.bucket = p_bucket;
  if v_oldest <= v_bound then
    -- Seconds whose hits have all left the window, oldest first along the primary key.
    with gone as (
      delete from rate_limit_seconds s where s.bucket = p_bucket and s.second <= v_bound returning s.hits
    ) select coalesce(sum(g.hits), 0) into v_expired from gone g;
    select min(s.second) into v_oldest from rate_limit_seconds s where s.bucket = p_bucket;
  end if;
  count_before := p_count - v_expired;
  granted := least(greatest(p_limit - count_before, 0), p_n);
  if granted > 0 then
    -- Under the bucket's lock nobody else writes its seconds.
    if v_newest >= v_second then
      update rate_limit_seconds set hits = hits + granted where bucket = p_bucket and second = v_second;
      if not found then -- only if the clock stepped back
        insert into rate_limit_seconds (bucket, second, hits) values (p_bucket, v_second, granted);
      end if;
    else
      insert into rate_limit_seconds (bucket, second, hits) values (p_bucket, v_second, granted);
    end if;
  end if;
  if granted > 0 or v_expired > 0 then
    update rate_limit_buckets set hits = count_before + granted where bucket = p_bucket;
  end if;
  reset_at := coalesce(v_oldest, v_second) + interval '1 second' + p_window;
end $$;

-- Locks a bucket's row (creating it when new) and returns its stored total.
create function rate_limit_lock(p_bucket text)
returns integer
language plpgsql as $$
declare
  v_count integer;
begin
  loop
    select b.hits into v_count from rate_limit_buckets b where b.bucket = p_bucket for update;
    exit when found;
    insert into rate_limit_buckets (bucket) values (p_bucket) on conflict do nothing;
  end loop;
  return v_count;
end $$;

create function rate_limit_take(p_bucket text, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language plpgsql as $$
declare
  t record;
begin
  -- A hit is bookkeeping: its commit need not wait for the WAL flush (a crash forgets at most
  -- the last few hundred milliseconds of hits). Locks and visibility are unchanged, so the count
  -- stays exact across processes; only durability is relaxed, and only for this transaction.
  perform set_config('synchronous_commit', 'off', true);
  select * into t from rate_limit_take_locked(p_bucket, rate_limit_lock(p_bucket), 1, p_limit, p_window);
  return query select t.granted = 1, case when t.granted = 1 then p_limit - t.count_before - 1 else 0 end,
                      t.reset_at;
end $$;

-- Read-only: the stored total less the seconds that have left the window since the last take.
create function rate_limit_peek(p_bucket text, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language plpgsql stable as $$
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

-- The hourly prune, bucket by bucket under the same lock as a take (so it never races one):
-- deletes the seconds that left the window (with slack) and drops buckets left empty. Returns
-- the number of hits deleted.
create function rate_limit_sweep(p_bucket text, p_older_than interval)
returns integer
language plpgsql as $$
declare
  v_deleted integer;
  v_bound timestamptz := clock_timestamp() - p_older_than - interval '1 second';
begin
  perform 1 from rate_limit_buckets where bucket = p_bucket for update;
  with gone as (
    delete from rate_limit_seconds s where s.bucket = p_bucket and s.second < v_bound
    returning s.hits
  ) select coalesce(sum(g.hits), 0) into v_deleted from gone g;
  update rate_limit_buckets set hits = greatest(hits - v_deleted, 0) where bucket = p_bucket;
  delete from rate_limit_buckets where bucket = p_bucket and hits = 0;
  return v_deleted;
end $$;

-- The sweep takes its bucket locks in the batches' order (it holds them until it commits).
create function rate_limit_sweep_all(p_older_than interval)
returns integer
language plpgsql as $$
declare
  b record;
  v_deleted integer := 0;
begin
  for b in select r.bucket from rate_limit_buckets r order by r.bucket loop
    v_deleted := v_deleted + rate_limit_sweep(b.bucket, p_older_than);
  end loop;
  return v_deleted;
end $$;

-- Keyed admissions in batches (as in sql/016): the API gathers the keyed calls that arrive while
-- an earlier batch is at the database and admits them in one statement (shared/db/batcher.ts).
-- Several calls for one key take their hits together: one lock, one look at the bucket's first
-- and last second (an expiry pass only when the first has left the window) and one update of
-- the current second, granted in arrival order until the limit is reached. Each key's first row
-- also carries its account as GET /api/v1/account shows it, read in the same statement.
--
-- A batch holds several bucket locks until it commits, so every holder of more than one takes
-- them in the same order (by bucket name): these batches, from any process, and the sweep.
create function admit_keys(p_hashes bytea[], p_tier_limits jsonb, p_window interval)
returns table (
  ord integer, id bigint, account_id bigint, variant text, tier text, rate_limit integer,
  revoked boolean, last_used_at timestamptz,
  allowed boolean, remaining integer, reset_at timestamptz,
  email text, account_tier text, beta_flags jsonb, notification_preferences jsonb,
  account_created_at timestamptz, plan text
)
language plpgsql as $$
declare
  k record;
  v_count integer;
  v_now timestamptz;
  v_second timestamptz;
  v_bound timestamptz;
  v_oldest timestamptz;
  v_newest timestamptz;
  v_expired integer;
  v_granted integer;
begin
  perform set_config('synchronous_commit', 'off', true); -- as in rate_limit_take: hits are bookkeeping
  for k in
    select a.id, a.account_id, a.variant, a.tier, a.revoked_at, a.last_used_at,
           coalesce(a.rate_limit_per_hour, (p_tier_limits ->> a.tier::text)::integer) as lim,
           'key:' || a.id as bucket,
           array_agg(h.ord::integer order by h.ord) as ords,
           acc.email as acc_email, acc.tier as acc_tier, acc.beta_flags as acc_beta_flags,
           acc.notification_preferences as acc_prefs, acc.created_at as acc_created_at, s.plan as acc_plan
      from unnest(p_hashes) with ordinality as h(hash, ord)
      join api_keys a on a.key_hash = h.hash
      join accounts acc on acc.id = a.account_id
      left join subscriptions s on s.account_id = acc.id and s.status = 'active'
     group by a.id, acc.id, s.id
     order by 'key:' || a.id
  loop
    if k.revoked_at is not null then
      return query select o, k.id::bigint, k.account_id::bigint, k.variant::text, k.tier::text, k.lim,
                          true, k.last_used_at, null::boolean, null::integer, null::timestamptz,
                          null::text, null::text, null::jsonb, null::jsonb, null::timestamptz, null::text
                     from unnest(k.ords) as o;
      continue;
    end if;
    -- rate_limit_lock and rate_limit_take_locked, inline.
    loop
      select b.hits into v_count from rate_limit_buckets b where b.bucket = k.bucket for update;
      exit when found;
      insert into rate_limit_buckets (bucket) values (k.bucket) on conflict do nothing;
    end loop;
    v_now := clock_timestamp();
    v_second := date_trunc('second', v_now);
    v_bound := v_now - p_window - interval '1 second';
    select min(s.second), max(s.second) into v_oldest, v_newest from rate_limit_seconds s where s.bucket = k.bucket;
    v_expired := 0;
    if v_oldest <= v_bound then
      with gone as (
        delete from rate_limit_seconds s where s.bucket = k.bucket and s.second <= v_bound returning s.hits
      ) select coalesce(sum(g.hits), 0) into v_expired from gone g;
      v_count := v_count - v_expired;
      select min(s.second) into v_oldest from rate_limit_seconds s where s.bucket = k.bucket;
    end if;
    v_granted := least(greatest(k.lim - v_count, 0), cardinality(k.ords));
    if v_granted > 0 then
      if v_newest >= v_second then
        update rate_limit_seconds set hits = hits + v_granted where bucket = k.bucket and second = v_second;
        if not found then -- only if the clock stepped back
          insert into rate_limit_seconds (bucket, second, hits) values (k.bucket, v_second, v_granted);
        end if;
      else
        insert into rate_limit_seconds (bucket, second, hits) values (k.bucket, v_second, v_granted);
      end if;
    end if;
    if v_granted > 0 or v_expired > 0 then
      update rate_limit_buckets set hits = v_count + v_granted where bucket = k.bucket;
    end if;
    -- The i-th call of this key in the batch: granted while the limit allows, in arrival order.
    -- The account comes once per key, on its first row.
    return query select c.o, k.id::bigint, k.account_id::bigint, k.variant::text, k.tier::text, k.lim,
                        false, k.last_used_at,
                        c.i <= v_granted,
                        case when c.i <= v_granted then k.lim - v_count - c.i::integer else 0 end,
                        coalesce(v_oldest, v_second) + interval '1 second' + p_window,
                        case when c.i = 1 then k.acc_email end, case when c.i = 1 then k.acc_tier::text end,
                        case when c.i = 1 then k.acc_beta_flags end, case when c.i = 1 then k.acc_prefs end,
                        case when c.i = 1 then k.acc_created_at end, case when c.i = 1 then k.acc_plan::text end
                   from unnest(k.ords) with ordinality as c(o, i);
  end loop;
end $$;

-- Plans that hold as the tables grow (see sql/016): every statement has an index made for it.
alter function admit_keys(bytea[], jsonb, interval) set enable_seqscan = off;
alter function rate_limit_take_locked(text, integer, integer, integer, interval) set enable_seqscan = off;
alter function rate_limit_lock(text) set enable_seqscan = off;
alter function rate_limit_take(text, integer, interval) set enable_seqscan = off;
alter function rate_limit_peek(text, integer, interval) set enable_seqscan = off;
alter function rate_limit_sweep(text, interval) set enable_seqscan = off;
