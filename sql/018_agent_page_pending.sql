-- Page and path rollups folded in bulk instead of upserted by every ingest batch. A batch now
-- appends its per-(day, path, platform) counts to agent_page_pending, in the same transaction as
-- its events (so nothing acknowledged can be lost when a process dies); agent_fold_pages moves a
-- site's pending counts into agent_page_rollups and agent_path_rollups in one transaction
-- (DELETE ... RETURNING, summed, upserted), so each count is folded exactly once however many
-- processes ingest and fold at the same time. Readers of the two rollup tables fold the site
-- first (waiting for a fold under way), so they see every acknowledged event.
-- Harness (ingest() with the bench's collect mix, 150,000 events): Postgres 25-30 -> 18-22 µs an
-- event; a log import whose paths barely repeat within a day costs the same as before.
create table agent_page_pending (
  site_id bigint not null,
  day date not null,
  path text not null,
  platform text not null,
  visits bigint not null,
  errors bigint not null,
  not_found bigint not null
);
-- No index: it cost about as much as it saved (harness, 150,000 collect events: Postgres 27-28
-- against 18-22 µs an event without it). Folds and readers' folds scan the table, which the fold
-- triggers keep small (docs/agent-analytics.md).

-- Folds one site's pending page counts. p_wait: wait for a fold of this site under way (readers,
-- which must see its result) or return 0 at once (ingestion's background folds). Returns the
-- pending rows folded.
create function agent_fold_pages(p_site bigint, p_wait boolean) returns bigint
language plpgsql as $$
declare
  v_rows bigint;
begin
  if p_wait then
    perform pg_advisory_xact_lock(hashtextextended('agent_fold_pages', p_site));
  elsif not pg_try_advisory_xact_lock(hashtextextended('agent_fold_pages', p_site)) then
    return 0;
  end if;
  -- A new statement, so a new snapshot: it sees every count committed before the lock was had.
  with d as (
    delete from agent_page_pending where site_id = p_site
    returning day, path, platform, visits, errors, not_found
  ), a as (
    select day, path, platform, sum(visits) as visits, sum(errors) as errors, sum(not_found) as not_found, count(*) as n
    from d group by 1, 2, 3
  ), pages as (
    insert into agent_page_rollups as p (site_id, day, path, platform, visits, errors, not_found)
    select p_site, day, path, platform, visits, errors, not_found from a order by 2, 3, 4
    on conflict (site_id, day, path, platform) do update set
      visits = p.visits + excluded.visits, errors = p.errors + excluded.errors, not_found = p.not_found + excluded.not_found
  ), paths as (
    insert into agent_path_rollups as p (site_id, day, path, visits, errors, not_found)
    select p_site, day, path, sum(visits), sum(errors), sum(not_found) from a group by 2, 3 order by 2, 3
    on conflict (site_id, day, path) do update set
      visits = p.visits + excluded.visits, errors = p.errors + excluded.errors, not_found = p.not_found + excluded.not_found
  )
  select coalesce(sum(n), 0) into v_rows from a;
  return v_rows;
end $$;
