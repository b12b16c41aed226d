-- Verification sources synced from the vendors' own files (shared/agent-verification/sources-sync.ts):
-- a stored list replaces the shipped snapshot's (shared/agent-verification/data/ip-ranges.json)
-- for its source unless the shipped one was published later.
create table agent_ip_ranges (
  source text primary key,            -- IP_RANGE_SOURCES key, e.g. openai-gptbot
  origin text not null,               -- the file or URL it was read from
  ranges text[] not null,             -- CIDRs, as the vendor lists them
  published_on date,                  -- the file's own date (creationTime), when it says
  fetched_at timestamptz not null default now()
);

-- Reverse-DNS host suffixes per platform, replacing the shipped ones (verify.ts) for that platform.
create table agent_rdns_suffixes (
  platform text primary key,
  origin text not null,
  suffixes text[] not null,
  fetched_at timestamptz not null default now()
);
