-- Rate limits in O(1) per call: each bucket keeps the number of its hits still stored, in one row
-- that is also the bucket's lock. A take deletes the hits that left the window (each hit is
-- deleted once, so this is constant work per call on average), then compares the stored count
-- with the limit: no count over the bucket's hits, however many there are. The hits themselves
-- stay, so the window is still a true rolling hour and X-RateLimit-Reset still names the moment
-- the oldest counted call leaves it.
-- Every read of the hits goes through (bucket, hit_at); the index on hit_at alone tempted the
-- planner into walking other buckets' hits, and the prune now walks the buckets instead.
drop index rate_limit_hits_at_idx;

create table rate_limit_buckets (
  bucket text primary key,
  hits integer not null default 0 check (hits >= 0)
);

insert into rate_limit_buckets (bucket, hits)
  select bucket, count(*) from rate_limit_hits group by bucket;

create or replace function rate_limit_take(p_bucket text, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language plpgsql as $$
declare
  v_now timestamptz;
  v_count integer;
  v_expired integer;
  v_oldest timestamptz;
begin
  -- A hit is bookkeeping: its commit need not wait for the WAL flush (a crash forgets at most
  -- the last few hundred milliseconds of hits). Locks and visibility are unchanged, so the count
  -- stays exact across processes; only durability is relaxed, and only for this transaction.
  perform set_config('synchronous_commit', 'off', true);
  -- The bucket row is the lock: concurrent calls for one bucket queue here, in any process.
  loop
    select b.hits into v_count from rate_limit_buckets b where b.bucket = p_bucket for update;
    exit when found;
    insert into rate_limit_buckets (bucket) values (p_bucket) on conflict do nothing;
  end loop;
  v_now := clock_timestamp(); -- read after the lock: the database clock decides the window
  -- Expired hits go oldest first along the (bucket, hit_at) index, never by a scan of the table.
  with gone as (
    delete from rate_limit_hits h where h.ctid = any (array(
      select e.ctid from rate_limit_hits e
       where e.bucket = p_bucket and e.hit_at <= v_now - p_window
       order by e.bucket, e.hit_at))
    returning 1
  ) select count(*) into v_expired from gone;
  v_count := v_count - v_expired;
  -- Ordered like the (bucket, hit_at) index, so this reads one index entry.
  select h.hit_at into v_oldest from rate_limit_hits h
   where h.bucket = p_bucket order by h.bucket, h.hit_at limit 1;
  if v_count < p_limit then
    insert into rate_limit_hits (bucket, hit_at) values (p_bucket, v_now);
    update rate_limit_buckets set hits = v_count + 1 where bucket = p_bucket;
    return query select true, p_limit - v_count - 1, coalesce(v_oldest, v_now) + p_window;
  else
    update rate_limit_buckets set hits = v_count where bucket = p_bucket;
    return query select false, 0, v_oldest + p_window;
  end if;
end $$;

-- Read-only: the stored count less the hits that have left the window since the last take.
create or replace function rate_limit_peek(p_bucket text, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language plpgsql stable as $$
declare
  v_now timestamptz := clock_timestamp();
  v_count integer;
  v_oldest timestamptz;
begin
  select coalesce((select b.hits from rate_limit_buckets b where b.bucket = p_bucket), 0)
       - (select count(*)::integer from rate_limit_hits h
           where h.bucket = p_bucket and h.hit_at <= v_now - p_window)
    into v_count;
  select h.hit_at into v_oldest from rate_limit_hits h
   where h.bucket = p_bucket and h.hit_at > v_now - p_window order by h.bucket, h.hit_at limit 1;
  return query select v_count < p_limit, greatest(p_limit - v_count, 0), coalesce(v_oldest, v_now) + p_window;
end $$;

-- The hourly prune, bucket by bucket under the same lock as a take (so it never races one):
-- deletes what left the window (with slack) and drops buckets left empty.
create function rate_limit_sweep(p_bucket text, p_older_than interval)
returns integer
language plpgsql as $$
declare
  v_deleted integer;
  v_bound timestamptz := clock_timestamp() - p_older_than;
begin
  perform 1 from rate_limit_buckets where bucket = p_bucket for update;
  with gone as (
    delete from rate_limit_hits h where h.ctid = any (array(
      select e.ctid from rate_limit_hits e
       where e.bucket = p_bucket and e.hit_at < v_bound
       order by e.bucket, e.hit_at))
    returning 1
  ) select count(*) into v_deleted from gone;
  update rate_limit_buckets set hits = greatest(hits - v_deleted, 0) where bucket = p_bucket;
  delete from rate_limit_buckets where bucket = p_bucket and hits = 0;
  return v_deleted;
end $$;

-- A keyed call's admission in one round trip: the key by its hash and, for a live key, one take
-- from its bucket (limit: the key's own, else its tier's from p_tier_limits).
create function admit_key(p_key_hash bytea, p_tier_limits jsonb, p_window interval)
returns table (
  id bigint, account_id bigint, variant text, tier text, rate_limit integer,
  revoked boolean, last_used_at timestamptz,
  allowed boolean, remaining integer, reset_at timestamptz
)
language plpgsql as $$
declare
  k record;
  v_limit integer;
begin
  select a.id, a.account_id, a.variant, a.tier, a.rate_limit_per_hour, a.revoked_at, a.last_used_at
    into k from api_keys a where a.key_hash = p_key_hash;
  if not found then return; end if;
  v_limit := coalesce(k.rate_limit_per_hour, (p_tier_limits ->> k.tier::text)::integer);
  if k.revoked_at is not null then
    return query select k.id::bigint, k.account_id::bigint, k.variant::text, k.tier::text, v_limit,
                        true, k.last_used_at, null::boolean, null::integer, null::timestamptz;
    return;
  end if;
  return query select k.id::bigint, k.account_id::bigint, k.variant::text, k.tier::text, v_limit,
                      false, k.last_used_at, t.allowed, t.remaining, t.reset_at
                 from rate_limit_take('key:' || k.id, v_limit, p_window) t;
end $$;
