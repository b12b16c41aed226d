-- Keyed admissions in batches: the API gathers the keyed calls that arrive while an earlier
-- batch is at the database and admits them in one statement (shared/db/batcher.ts), so a busy
-- process pays one round trip and one commit for many calls instead of one each. The rules are
-- rate_limit_take's: the bucket row is the lock, the database clock decides the window, expired
-- hits are deleted once, and the count is exact across processes.
--
-- Each row also carries the key's account as GET /api/v1/account shows it, read in the same
-- statement, so that endpoint needs no second round trip.
--
-- Several calls for one key take their hits together: one lock, one expiry pass and one insert
-- for all of them, granted in arrival order until the limit is reached.
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
  v_expired integer;
  v_oldest timestamptz;
  v_now timestamptz;
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
    loop
      select b.hits into v_count from rate_limit_buckets b where b.bucket = k.bucket for update;
      exit when found;
      insert into rate_limit_buckets (bucket) values (k.bucket) on conflict do nothing;
    end loop;
    v_now := clock_timestamp();
    with gone as (
      delete from rate_limit_hits h where h.ctid = any (array(
        select e.ctid from rate_limit_hits e
         where e.bucket = k.bucket and e.hit_at <= v_now - p_window
         order by e.bucket, e.hit_at))
      returning 1
    ) select count(*) into v_expired from gone;
    v_count := v_count - v_expired;
    select h.hit_at into v_oldest from rate_limit_hits h
     where h.bucket = k.bucket order by h.bucket, h.hit_at limit 1;
    v_granted := least(greatest(k.lim - v_count, 0), cardinality(k.ords));
    if v_granted > 0 then
      insert into rate_limit_hits (bucket, hit_at) select k.bucket, v_now from generate_series(1, v_granted);
    end if;
    if v_granted > 0 or v_expired > 0 then
      update rate_limit_buckets set hits = v_count + v_granted where bucket = k.bucket;
    end if;
    -- The i-th call of this key in the batch: granted while the limit allows, in arrival order.
    return query select c.o, k.id::bigint, k.account_id::bigint, k.variant::text, k.tier::text, k.lim,
                        false, k.last_used_at,
                        c.i <= v_granted,
                        case when c.i <= v_granted then k.lim - v_count - c.i::integer else 0 end,
                        coalesce(v_oldest, v_now) + p_window,
                        k.acc_email, k.acc_tier, k.acc_beta_flags, k.acc_prefs, k.acc_created_at, k.acc_plan
                   from unnest(k.ords) with ordinality as c(o, i);
  end loop;
end $$;

-- The sweep now takes its bucket locks in the batches' order (it holds them until it commits).
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


-- Plans that hold as the tables grow. plpgsql keeps a plan per statement and connection, and a
-- plan made while rate_limit_hits was nearly empty (a new deployment, before autovacuum's first
-- analyze) reads it whole: a sequential scan looked free then and stays in the cache, so every
-- call got slower with every hit (measured: keyed calls fell from 3,300 to 1,600 a second within
-- 20 seconds of a fresh database, one full scan of the hits per batch). Every statement of these
-- functions has an index made for it, so they run with sequential scans priced out.
alter function admit_keys(bytea[], jsonb, interval) set enable_seqscan = off;
alter function rate_limit_take(text, integer, interval) set enable_seqscan = off;
alter function rate_limit_peek(text, integer, interval) set enable_seqscan = off;
alter function rate_limit_sweep(text, interval) set enable_seqscan = off;
