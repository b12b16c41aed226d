-- The fan-outs reschedule every claimed row (next_scan_due_at moves a period on). With that column
-- in an index, each reschedule is a full new row version plus an entry in every index of the
-- table (three on monitored_sites); without it, Postgres updates the row in place on its page
-- (a HOT update: no index entry at all), about three times cheaper for a 100,000-site backlog.
-- The price is that the claim reads the table sequentially instead of an index range: a few
-- milliseconds per tick for 100,000 sites, paid once a minute. Half-empty pages (fillfactor 50)
-- leave room for every row of a page to be rescheduled in one go (a catch-up after downtime);
-- tables written before this take the setting as their pages are rewritten.
drop index if exists monitored_sites_due_idx;
alter table monitored_sites set (fillfactor = 50);

drop index if exists b_site_schedules_due_idx;
alter table b_site_schedules set (fillfactor = 50);
