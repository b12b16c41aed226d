-- A monitored site may declare its IndexNow key (and where the key file lives, when not at
-- /{key}.txt): the key file cannot be found from outside without it. The geo-indexnow check then
-- verifies the file instead of calling an unadvertised setup unverifiable.
alter table monitored_sites
  add column indexnow_key text,
  add column indexnow_key_location text,
  add constraint monitored_sites_indexnow_key_format
    check (indexnow_key is null or indexnow_key ~ '^[A-Za-z0-9-]{8,128}$'),
  add constraint monitored_sites_indexnow_location_needs_key
    check (indexnow_key_location is null or indexnow_key is not null);
