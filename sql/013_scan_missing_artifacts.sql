-- A scan that finished without an artifact it should have (a gatherer failed, a deadline or the
-- browser memory budget cut it short) is `partial`: it lists the missing artifacts here, is
-- served with `partial: true`, and is never reused from the scan cache.
alter table scans add column missing_artifacts text[] not null default '{}';
