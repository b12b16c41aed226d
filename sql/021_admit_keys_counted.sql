-- Keyed admissions by distinct key: the API sends each key of a batch once with its number of
-- calls (admit_keys_counted) instead of one array entry per call (admit_keys, sql/017), and gets
-- one row per key back: the count before the batch's take and the number granted, from which it
-- answers the key's calls in arrival order. The key look-up then joins one row per key, with no
-- grouping, and the answer has one row per key.
--
-- A bucket row also remembers its first and last counted second (oldest, newest), so the
-- common take (the bucket was hit earlier in this second and nothing has left the window) is one
-- update of the bucket row (which also takes its lock) and one of the current second: no look at
-- the seconds table. Any other case (a new second, an expiry, a new bucket, the clock stepping
-- back, columns another writer left behind) takes the full path, which reads both seconds from
-- the table again. Other writers need not keep the columns: they only delete seconds that have
-- left the window (then the stored first second has left it too, and the full path runs) or add
-- the current second (then the stored last one differs from it, and the full path runs).
--
-- Locks and rules are sql/017's: bucket rows locked in bucket-name order, the database clock
-- decides the window, a take never exceeds the limit. admit_keys stays for processes of the
-- previous release during a rolling deploy.
alter table rate_limit_buckets
  add column oldest timestamptz, -- first counted second, as the last admit_keys_counted saw it
  add column newest timestamptz, -- last counted second, likewise
  add column last_granted integer; -- the last fast-path take's grant (an UPDATE returns new values only)

create function admit_keys_counted(p_hashes bytea[], p_counts integer[], p_tier_limits jsonb, p_window interval)
returns table (
  ord integer, id bigint, account_id bigint, variant text, tier text, rate_limit integer,
  revoked boolean, last_used_at timestamptz,
  count_before integer, granted integer, reset_epoch double precision,
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
  v_after integer;
begin
  perform set_config('synchronous_commit', 'off', true); -- as in rate_limit_take: hits are bookkeeping
  for k in
    select array_position(p_hashes, a.key_hash) as ord, a.id, a.account_id, a.variant, a.tier, a.revoked_at,
           a.last_used_at, coalesce(a.rate_limit_per_hour, (p_tier_limits ->> a.tier::text)::integer) as lim,
           'key:' || a.id as bucket,
           acc.email as acc_email, acc.tier as acc_tier, acc.beta_flags as acc_beta_flags,
           acc.notification_preferences as acc_prefs, acc.created_at as acc_created_at, s.plan as acc_plan
      from api_keys a
      join accounts acc on acc.id = a.account_id
      left join subscriptions s on s.account_id = acc.id and s.status = 'active'
     where a.key_hash = any(p_hashes)
     order by 'key:' || a.id
  loop
    if k.revoked_at is not null then
      return query select k.ord, k.id::bigint, k.account_id::bigint, k.variant::text, k.tier::text, k.lim,
                          true, k.last_used_at, null::integer, null::integer, null::double precision,
                          null::text, null::text, null::jsonb, null::jsonb, null::timestamptz, null::text;
      continue;
    end if;
    -- The common take: already hit in this second, nothing left the window. The clock is read
    -- in the condition, which is checked again on the locked row after any wait for its lock:
    -- the database clock after the lock decides, as on the full path.
    update rate_limit_buckets b
       set last_granted = least(greatest(k.lim - b.hits, 0), p_counts[k.ord]),
           hits = b.hits + least(greatest(k.lim - b.hits, 0), p_counts[k.ord])
     where b.bucket = k.bucket
       and b.newest = date_trunc('second', clock_timestamp())
       and b.oldest > clock_timestamp() - p_window - interval '1 second'
    returning b.hits, b.last_granted, b.oldest, b.newest into v_after, v_granted, v_oldest, v_second;
    if found then
      if v_granted > 0 then
        update rate_limit_seconds set hits = hits + v_granted where bucket = k.bucket and second = v_second;
        if not found then -- its second row went with a dropped bucket: count it anew
          insert into rate_limit_seconds (bucket, second, hits) values (k.bucket, v_second, v_granted);
        end if;
      end if;
      v_count := v_after - v_granted;
    else
      -- The full take (sql/017's admit_keys), which also stores the first and last second.
      loop
        select b.hits into v_count from rate_limit_buckets b where b.bucket = k.bucket for update;
        exit when found;
        insert into rate_limit_buckets (bucket) values (k.bucket) on conflict do nothing;
      end loop;
      v_now := clock_timestamp(); -- read after the lock: the database clock decides
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
      v_granted := least(greatest(k.lim - v_count, 0), p_counts[k.ord]);
      if v_granted > 0 then
        if v_newest >= v_second then
          update rate_limit_seconds set hits = hits + v_granted where bucket = k.bucket and second = v_second;
          if not found then -- only if the clock stepped back
            insert into rate_limit_seconds (bucket, second, hits) values (k.bucket, v_second, v_granted);
          end if;
        else
          insert into rate_limit_seconds (bucket, second, hits) values (k.bucket, v_second, v_granted);
        end if;
        v_oldest := coalesce(v_oldest, v_second);
        v_newest := greatest(v_newest, v_second);
      end if;
      update rate_limit_buckets
         set hits = v_count + v_granted, oldest = v_oldest, newest = v_newest
       where bucket = k.bucket;
    end if;
    return query select k.ord, k.id::bigint, k.account_id::bigint, k.variant::text, k.tier::text, k.lim,
                        false, k.last_used_at, v_count, v_granted,
                        extract(epoch from coalesce(v_oldest, v_second) + interval '1 second' + p_window)::double precision,
                        k.acc_email, k.acc_tier::text, k.acc_beta_flags, k.acc_prefs, k.acc_created_at, k.acc_plan::text;
  end loop;
end $$;

-- Plans that hold as the tables grow (see sql/016): every statement has an index made for it.
-- Generic plans, made once per connection: with sequential scans priced out, the planner kept
-- rejecting a statement's generic plan and planned it afresh on every call (96 against 230 us a
-- call in a loop of 3,000 on Postgres 15).
alter function admit_keys_counted(bytea[], integer[], jsonb, interval)
  set enable_seqscan = off
  set plan_cache_mode = force_generic_plan;
