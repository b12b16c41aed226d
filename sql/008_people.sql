-- People who sign in to the web console: a password per account, sessions, and one-time email
-- tokens (sign-up confirmation, invitations, password resets). Only SHA-256 hashes of session and
-- token secrets are stored, and argon2id hashes of passwords.

create index accounts_email_lower_idx on accounts (lower(email));

create table people (
  account_id bigint primary key references accounts (id) on delete cascade,
  password_hash text not null,              -- argon2id, PHC string
  created_at timestamptz not null default now(),
  password_changed_at timestamptz not null default now()
);

create table sessions (
  id_hash bytea primary key,                -- SHA-256 of the cookie value
  account_id bigint not null references people (account_id) on delete cascade,
  csrf_token text not null,                 -- every form of this session carries it
  user_agent text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_account_idx on sessions (account_id);
create index sessions_expires_idx on sessions (expires_at);

create table email_tokens (
  token_hash bytea primary key,             -- SHA-256 of the token in the link
  purpose text not null check (purpose in ('signup', 'invite', 'reset')),
  email text not null,
  variant char(1) check (variant in ('A', 'B')),
  tier text,
  password_hash text,                       -- signup: chosen before the address is confirmed
  account_id bigint references accounts (id) on delete cascade, -- reset: whose password
  created_by text,                          -- invite: who made it (operator CLI)
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  check (purpose <> 'reset' or account_id is not null),
  check (purpose = 'reset' or (variant is not null and tier is not null))
);
create index email_tokens_email_idx on email_tokens (lower(email), purpose);
