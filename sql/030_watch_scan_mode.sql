-- The scan mode (quick or full) of each monitoring scan: scores of different modes measure
-- different things (full adds a rendered page and Lighthouse), so drops compare like with like.
-- Rows whose scan is still stored take its mode; the rest stay null and compare with nothing.
alter table monitor_scans add column scan_mode text check (scan_mode in ('quick', 'full'));
update monitor_scans m set scan_mode = s.mode from scans s where s.id = m.scan_id;
