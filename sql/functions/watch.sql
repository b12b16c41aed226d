-- The scheduled watch's slot jobs. Re-applied by the migrator on every migrate
-- (shared/db/migrate.ts), before graphile-worker's schema: plpgsql resolves graphile_worker's
-- names when it runs, not here.

-- Enqueues one slot job per claimed site (graphile_worker.add_jobs, in the caller's transaction,
-- so a claim and its jobs commit together): payload {siteId, dueAt (the slot, epoch ms)}, job key
-- p_key_prefix || site id (one pending slot job per site: a newer claim replaces one that has not
-- started). p_site_ids and p_due_ats pair up by position; null or empty adds nothing. Returns the
-- jobs added.
create or replace function watch_slot_jobs(
  p_task text, p_attempts integer, p_key_prefix text, p_priority integer,
  p_site_ids bigint[], p_due_ats timestamptz[]
) returns integer
language plpgsql
as $$
declare
  v_added integer;
begin
  if coalesce(cardinality(p_site_ids), 0) = 0 then
    return 0;
  end if;
  select count(*)::integer into v_added
    from graphile_worker.add_jobs(array(
      select row(
               p_task,
               json_build_object('siteId', s.id::text, 'dueAt', floor(extract(epoch from s.due_at) * 1000)::bigint),
               null::text,
               null::timestamptz,
               p_attempts,
               p_key_prefix || s.id,
               p_priority,
               null::text[]
             )::graphile_worker.job_spec
        from unnest(p_site_ids, p_due_ats) with ordinality as s(id, due_at, n)
       order by s.n));
  return v_added;
end $$;
