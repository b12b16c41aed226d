-- Why a partial scan lacks each missing artifact ({"Rendered": "The browser's load ..."}), so the
-- scan views can say it without reading the (large) artifacts. Empty for complete scans.
alter table scans add column partial_reasons jsonb not null default '{}'::jsonb;
