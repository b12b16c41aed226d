import type { ColumnType, Generated, Selectable } from 'kysely';

// Agent traffic (B), sql/006_agent_traffic.sql.

export interface AgentSitesTable {
  id: Generated<string>;
  account_id: string;
  tracking_id: string;
  url: string;
  domain: string;
  label: string;
  ingest_token_hash: Buffer;
  ingest_token_prefix: string;
  created_at: ColumnType<Date, never, never>;
}
export type AgentSite = Selectable<AgentSitesTable>;

export type Verification = 'signature' | 'ip' | 'rdns' | 'none' | 'pending' | 'unverified' | 'spoofed';

export interface AgentEventsTable {
  site_id: string;
  time: ColumnType<Date, Date | string, never>;
  hash: Buffer;
  source: 'collect' | 'import';
  method: string;
  path: string;
  status: number | null;
  ip: string | null;
  user_agent: string;
  platform: string;
  agent: string;
  type: string;
  verification: Verification;
  confidence: number;
  ingested_at: ColumnType<Date, never, never>;
}

export interface AgentRollupsTable {
  site_id: string;
  hour: Date;
  platform: string;
  agent: string;
  type: string;
  verification: Verification;
  visits: string;
  errors: string;
  first_at: Date;
  last_at: Date;
}

/** agent_rollups summed per UTC day (sql/020): the same columns, `day` in place of `hour`. */
export interface AgentDailyRollupsTable extends Omit<AgentRollupsTable, 'hour'> {
  day: ColumnType<Date, string, string>;
}

export interface AgentPageRollupsTable {
  site_id: string;
  day: ColumnType<Date, string, string>;
  path: string;
  platform: string;
  visits: string;
  errors: string;
  not_found: string;
}

export interface AgentPathRollupsTable {
  site_id: string;
  day: ColumnType<Date, string, string>;
  path: string;
  visits: string;
  errors: string;
  not_found: string;
}

/** agent_path_rollups summed per 8-day block (block = floor(days since 1970-01-01 / 8); sql/019). */
export interface AgentPathBlocksTable {
  site_id: string;
  block: number;
  path: string;
  visits: string;
  errors: string;
  not_found: string;
}

export interface AiReferralsTable {
  site_id: string;
  time: Date;
  hash: Buffer;
  platform: string;
  referer_host: string;
  path: string;
}

export interface AiReferralRollupsTable {
  site_id: string;
  day: ColumnType<Date, string, string>;
  platform: string;
  path: string;
  visits: string;
}

export interface AgentCoverageTable {
  site_id: string;
  day: ColumnType<Date, string, string>;
  source: string;
  requests: string;
  updated_at: ColumnType<Date, never, Date | string>;
}

export interface RateLimitWeightsTable {
  bucket: string;
  minute: Date;
  weight: string;
}
