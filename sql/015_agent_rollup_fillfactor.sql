-- Rollup rows are counters updated in place by every ingest batch (ON CONFLICT DO UPDATE). With
-- free space left on each page the new row version stays on its page and no index changes (a HOT
-- update: the counters are in no index), which roughly halves what a batch costs Postgres. Applies
-- to pages written from now on; VACUUM FULL or pg_repack rewrites an existing table.
alter table agent_rollups set (fillfactor = 70);
alter table agent_page_rollups set (fillfactor = 70);
alter table agent_path_rollups set (fillfactor = 70);
alter table ai_referral_rollups set (fillfactor = 70);
