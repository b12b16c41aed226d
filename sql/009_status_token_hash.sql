-- Status-page tokens are stored like API keys: only their SHA-256 and a short display prefix.
-- The token is shown once, when the subscription is created or its token rotated
-- (`sightline subscriptions rotate-status-token`). Existing clear tokens are hashed here, so the
-- links already handed out keep working.
alter table subscriptions
  add column status_token_hash bytea,
  add column status_token_prefix text;

update subscriptions
   set status_token_hash = sha256(convert_to(status_token, 'UTF8')),
       status_token_prefix = left(status_token, 6);

alter table subscriptions
  alter column status_token_hash set not null,
  alter column status_token_prefix set not null,
  add constraint subscriptions_status_token_hash_key unique (status_token_hash),
  drop column status_token;
