-- Leases (issue 17): a process may take more of a key's calls than the calls it has in hand, when
-- the key's hour has room to spare, and answer the key's next calls in the same database second
-- from that lease without a statement each; what it did not use it gives back. For that it needs
-- the second the grant was counted in: admit_keys_counted (sql/021) now also returns it
-- (second_epoch, null when nothing was granted), and rate_limit_give_back returns unused calls
-- to that second. The body is sql/021's, unchanged but for the new column.
--
-- A process of the previous release keeps working during a rolling deploy: its prepared
-- statement fails once with 0A000 (result columns changed) and it sends the statement unnamed
-- from then on, ignoring the extra column (shared/accounts/auth.ts).
drop function admit_keys_counted(bytea[], integer[], jsonb, interval);

create function admit_keys_counted(p_hashes bytea[], p_counts integer[], p_tier_limits jsonb, p_window interval)
returns table (
  ord integer, id bigint, account_id bigint, variant text, tier text, rate_limit integer,
  revoked boolean, last_used_at timestamptz,
  count_before integer, granted integer, reset_epoch double precision,
  email text, account_tier text, beta_flags jsonb, notification_preferences jsonb,
  account_created_at timestamptz, plan text, second_epoch double precision
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
                          null::text, null::text, null::jsonb, null::jsonb, null::timestamptz, null::text,
                          null::double precision;
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
                        k.acc_email, k.acc_tier::text, k.acc_beta_flags, k.acc_prefs, k.acc_created_at, k.acc_plan::text,
                        case when v_granted > 0 then extract(epoch from v_second)::double precision end;
  end loop;
end $$;

alter function admit_keys_counted(bytea[], integer[], jsonb, interval)
  set enable_seqscan = off
  set plan_cache_mode = force_generic_plan;

-- Unused leased calls back to the second they were counted in, each bucket's row locked first
-- (in bucket-name order, as every writer does). A second already gone from the window, or with
-- fewer hits than given back (another writer cannot remove hits of a live second, so that means a
-- caller's mistake), is left alone. A second emptied by it is deleted (hits > 0 is checked) and
-- the bucket's first and last seconds are forgotten, so the next take reads them afresh.
create function rate_limit_give_back(p_buckets text[], p_seconds double precision[], p_counts integer[])
returns integer
language plpgsql as $$
declare
  g record;
  v_returned integer := 0;
begin
  perform set_config('synchronous_commit', 'off', true); -- bookkeeping, as every take
  for g in
    select u.bucket, to_timestamp(u.second) as second, u.n
      from unnest(p_buckets, p_seconds, p_counts) as u(bucket, second, n)
     where u.n > 0
     order by u.bucket
  loop
    perform 1 from rate_limit_buckets b where b.bucket = g.bucket for update;
    continue when not found;
    delete from rate_limit_seconds s where s.bucket = g.bucket and s.second = g.second and s.hits = g.n;
    if found then
      update rate_limit_buckets b set hits = b.hits - g.n, oldest = null, newest = null where b.bucket = g.bucket;
    else
      update rate_limit_seconds s set hits = s.hits - g.n
       where s.bucket = g.bucket and s.second = g.second and s.hits > g.n;
      continue when not found;
      update rate_limit_buckets b set hits = b.hits - g.n where b.bucket = g.bucket;
    end if;
    v_returned := v_returned + g.n;
  end loop;
  return v_returned;
end $$;
