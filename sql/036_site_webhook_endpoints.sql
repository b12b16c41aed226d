-- One webhook-endpoint registry: an A monitored site's alert webhook is a webhook_endpoints row the
-- site points at. Such a row serves that one site, takes monitoring.alert only, has no thresholds
-- of its own (the site's alert_threshold rules) and no secret of its own: it is signed with the
-- account's secret (null here). An account has one variant, so an A account's endpoints are its
-- sites' webhooks and a B account's are those of /api/v1/webhooks.

alter table webhook_endpoints alter column secret drop not null;
alter table monitored_sites
  add column webhook_endpoint_id bigint unique references webhook_endpoints (id) on delete set null;

create temporary table site_webhook_moves as
  select id as site_id, account_id, webhook_url as url, nextval('webhook_endpoints_id_seq') as endpoint_id
    from monitored_sites where webhook_url is not null;
insert into webhook_endpoints (id, account_id, url, events, threshold, secret, created_at, updated_at)
  select m.endpoint_id, m.account_id, m.url, '{monitoring.alert}', '{}', null, s.created_at, s.updated_at
    from site_webhook_moves m join monitored_sites s on s.id = m.site_id;
update monitored_sites s set webhook_endpoint_id = m.endpoint_id
  from site_webhook_moves m where m.site_id = s.id;
drop table site_webhook_moves;

alter table monitored_sites drop column webhook_url;
-- Competitors never alert.
alter table monitored_sites
  add constraint monitored_sites_own_webhook check (site_type = 'own' or webhook_endpoint_id is null);

-- The endpoint goes with its site.
create function monitored_site_endpoint_delete() returns trigger
language plpgsql as $$
begin
  delete from webhook_endpoints where id = old.webhook_endpoint_id;
  return null;
end $$;
create trigger monitored_sites_endpoint_delete after delete on monitored_sites
  for each row when (old.webhook_endpoint_id is not null) execute function monitored_site_endpoint_delete();
