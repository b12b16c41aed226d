-- Checkout with Stripe (shared/billing/). Each webhook event is recorded once it has been handled,
-- so a replayed event (Stripe retries until it gets a 2xx) changes nothing a second time.
create table stripe_events (
  id text primary key,                 -- evt_…
  type text not null,
  account_id bigint references accounts (id) on delete set null,
  handled_at timestamptz not null default now()
);

-- The Stripe subscription behind an account's monitoring plan: its later events (renewed,
-- cancelled, payment failed) name only the subscription.
create table stripe_subscriptions (
  id text primary key,                 -- sub_…
  account_id bigint not null references accounts (id) on delete cascade,
  plan text not null check (plan in ('growth', 'agency')),
  status text not null,
  updated_at timestamptz not null default now()
);
create index stripe_subscriptions_account on stripe_subscriptions (account_id);
