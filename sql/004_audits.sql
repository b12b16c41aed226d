-- Audit orders (variant A) and the record of every outbound webhook attempt.

-- Per-account Standard Webhooks signing secret (whsec_...), created on first use.
alter table accounts add column webhook_secret text;

create table audit_orders (
  id text primary key,                          -- ao_ + random
  account_id bigint not null references accounts (id) on delete cascade,
  product text not null references audit_products (id),
  target_url text not null,                     -- normalised
  webhook_url text,
  status text not null default 'paid' check (status in ('paid', 'generating', 'delivered', 'failed')),
  idempotency_key text,                         -- the client's Idempotency-Key header, per account
  report_token text not null,                   -- capability in report_url: shareable without the key
  report jsonb,                                 -- the one report of this order, set with delivered
  report_summary text,
  error jsonb,                                  -- {code, message} when failed
  attempts integer not null default 0,          -- generation runs started (crashed ones included)
  created_at timestamptz not null default now(),
  started_at timestamptz,
  delivered_at timestamptz,
  failed_at timestamptz,
  check ((status = 'delivered') = (report is not null and delivered_at is not null))
);
-- A retried POST with the same key finds the first order instead of creating another.
create unique index audit_orders_idempotency_idx on audit_orders (account_id, idempotency_key)
  where idempotency_key is not null;
create index audit_orders_account_idx on audit_orders (account_id, created_at desc);
create index audit_orders_status_idx on audit_orders (status, created_at desc);

-- One row per webhook attempt (there is only ever one attempt per event: no retries). `pending`
-- lasts while the request is in flight; a row left pending by a dead worker is settled as failed.
create table webhook_deliveries (
  id text primary key,                          -- msg_ + random: the webhook-id header
  account_id bigint not null references accounts (id) on delete cascade,
  event text not null,
  url text not null,
  subject text,                                 -- what it is about, e.g. an order id or a site id
  dedupe_key text unique,                       -- at most one attempt per key, across crashes
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  http_status integer,
  latency_ms integer,
  error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index webhook_deliveries_account_idx on webhook_deliveries (account_id, created_at desc);
create index webhook_deliveries_subject_idx on webhook_deliveries (subject, created_at desc) where subject is not null;
