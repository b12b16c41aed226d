-- Accounts, keys, subscriptions, the audit catalogue and rate-limit bookkeeping.

create table accounts (
  id bigserial primary key,
  email text not null unique,
  variant char(1) not null check (variant in ('A', 'B')),
  tier text not null,
  beta_flags jsonb not null default '{}'::jsonb,
  notification_preferences jsonb not null default '{"email_alerts": true, "weekly_digest": false}'::jsonb,
  created_at timestamptz not null default now(),
  check ((variant = 'A' and tier in ('free', 'pro', 'agent')) or (variant = 'B' and tier in ('intelligence', 'optimisation')))
);

create table api_keys (
  id bigserial primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  key_hash bytea not null unique,          -- SHA-256 of the whole key; the key itself is never stored
  display_prefix text not null,            -- e.g. sl_live_Ab12Cd: enough to recognise, useless to attack
  variant char(1) not null check (variant in ('A', 'B')),
  tier text not null,
  rate_limit_per_hour integer check (rate_limit_per_hour > 0), -- operator override of the tier limit
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_account_idx on api_keys (account_id);
create index api_keys_prefix_idx on api_keys (display_prefix);

create table subscriptions (
  id bigserial primary key,
  account_id bigint not null unique references accounts (id) on delete cascade,
  plan text not null check (plan in ('growth', 'agency')),
  status text not null default 'active' check (status in ('active', 'canceled')),
  site_quota integer not null,
  scan_frequency text not null check (scan_frequency in ('daily', 'weekly')),
  prompt_quota integer not null,
  status_token text not null unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table audit_products (
  id text primary key,
  name text not null,
  description text not null,
  dimension text not null,
  price_pence integer not null check (price_pence > 0),
  position integer not null
);

insert into audit_products (id, name, description, dimension, price_pence, position) values
  ('seo_audit', 'SEO Audit', 'Crawl-based search-engine audit: titles, descriptions, canonicals, indexability, structured data, sitemaps and robots.txt, page by page.', 'seo', 4900, 1),
  ('speed_audit', 'Speed Audit', 'Lab performance audit with Lighthouse metrics, page weight, caching, compression and render-blocking resources.', 'speed', 4900, 2),
  ('security_audit', 'Security Audit', 'HTTP security review graded like Mozilla''s Observatory: HTTPS, HSTS, CSP, cookies, framing, SRI and information leaks.', 'security', 5900, 3),
  ('accessibility_audit', 'Accessibility Audit', 'WCAG-oriented accessibility audit with axe-core rules weighted by impact, plus static checks on every crawled page.', 'accessibility', 5900, 4),
  ('mobile_audit', 'Mobile Audit', 'Mobile usability at 375px: viewport, horizontal overflow, tap targets, legible fonts and responsive images.', 'mobile', 3900, 5),
  ('content_audit', 'Content Audit', 'Content quality: length, readability, heading outline, image alternatives, freshness and duplicate titles.', 'content', 3900, 6),
  ('conversion_audit', 'Conversion Audit', 'Conversion review: calls to action above the fold, form usability, contact paths, trust signals and pricing visibility.', 'conversion', 4900, 7);

-- Rolling-hour rate limits: one row per counted call. Serialised per bucket by an advisory lock,
-- so the count stays exact when many API processes serve one key at once.
create table rate_limit_hits (
  bucket text not null,
  hit_at timestamptz not null default clock_timestamp()
);
create index rate_limit_hits_bucket_at_idx on rate_limit_hits (bucket, hit_at);
create index rate_limit_hits_at_idx on rate_limit_hits (hit_at);

create function rate_limit_take(p_bucket text, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language plpgsql as $$
declare
  v_now timestamptz;
  v_count integer;
  v_oldest timestamptz;
begin
  perform pg_advisory_xact_lock(hashtextextended(p_bucket, 7));
  v_now := clock_timestamp(); -- read after the lock: the database clock decides the window
  select count(*), min(h.hit_at) into v_count, v_oldest
    from rate_limit_hits h where h.bucket = p_bucket and h.hit_at > v_now - p_window;
  if v_count < p_limit then
    insert into rate_limit_hits (bucket, hit_at) values (p_bucket, v_now);
    return query select true, p_limit - v_count - 1, coalesce(v_oldest, v_now) + p_window;
  else
    return query select false, 0, v_oldest + p_window;
  end if;
end $$;

create function rate_limit_peek(p_bucket text, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_at timestamptz)
language sql stable as $$
  select count(*) < p_limit, greatest(p_limit - count(*)::integer, 0), coalesce(min(h.hit_at), clock_timestamp()) + p_window
    from rate_limit_hits h where h.bucket = p_bucket and h.hit_at > clock_timestamp() - p_window
$$;
