-- The rate limiter's functions now live in sql/functions/rate-limits.sql, which the migrator
-- re-applies after the migrations on every migrate. This drops every function the migrations
-- defined for it (the file creates the ones still used) and the columns of the keyed fast path
-- and of leases, which the new functions do not keep.
drop function if exists admit_keys_counted(bytea[], integer[], jsonb, interval);
drop function if exists admit_keys(bytea[], jsonb, interval);
drop function if exists rate_limit_give_back(text[], double precision[], integer[]);
drop function if exists rate_limit_take(text, integer, interval);
drop function if exists rate_limit_take_locked(text, integer, integer, integer, interval);
drop function if exists rate_limit_lock(text);
drop function if exists rate_limit_peek(text, integer, interval);
drop function if exists rate_limit_sweep_all(interval);
drop function if exists rate_limit_sweep(text, interval);

alter table rate_limit_buckets
  drop column if exists oldest,
  drop column if exists newest,
  drop column if exists last_granted;
