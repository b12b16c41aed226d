-- The agent catalogue as data (shared/agent-catalogue/store.ts). Rows come from the shipped
-- snapshot (loaded on every migrate), from `sightline agents sync` (public lists) or are local
-- (`sightline agents add`, the console's "Report as an agent"). A token has at most one shared
-- row (snapshot or synced) and one local row; the local one wins.
create table agent_catalogue (
  id bigserial primary key,
  token text not null check (token <> ''),
  token_key text generated always as (lower(token)) stored,
  is_local boolean generated always as (origin = 'local') stored,
  aliases text[] not null default '{}',
  pattern text,                                  -- a list's user-agent regex (case-insensitive)
  operator text not null,
  platform text not null,
  purpose text not null check (purpose in ('training', 'search', 'browse', 'search-engine')),
  category text not null default '',
  ai boolean not null default true,
  match text not null default 'word' check (match in ('word', 'product')),
  verification jsonb not null default '{}',      -- { ipRanges?, webBotAuth? }
  sources text[] not null default '{}',          -- where the facts came from, first one owns them
  origin text not null check (origin in ('snapshot', 'synced', 'local')),
  added date not null default current_date,
  updated_at timestamptz not null default now(),
  unique (token_key, is_local)
);

-- One row: the catalogue's revision (bumped by every change; processes reload when it moves)
-- and the shipped snapshot version last loaded.
create table agent_catalogue_state (
  singleton boolean primary key default true check (singleton),
  revision bigint not null default 0,
  snapshot text not null default '',
  changed_at timestamptz not null default now()
);
insert into agent_catalogue_state default values;

-- The lists merged into the catalogue: the shipped snapshot's and each synced one.
create table agent_catalogue_sources (
  name text primary key,
  location text not null,                        -- 'snapshot', a file path or a URL
  agents int not null,
  synced_at timestamptz not null default now()
);
