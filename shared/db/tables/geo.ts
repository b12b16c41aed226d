import type { ColumnType, Generated, Selectable } from 'kysely';

// sql/007_geo.sql: canonical prompts, stored GEO checks, visibility / share-of-voice runs and
// their answers, and the monthly provider-call counter.

type Json<T> = ColumnType<T, string | undefined, string>;

export interface GeoPromptsTable {
  id: Generated<string>;
  account_id: string;
  prompt: string;
  label: string;
  created_at: ColumnType<Date, never, never>;
}
export type GeoPrompt = Selectable<GeoPromptsTable>;

export interface GeoChecksTable {
  id: Generated<string>;
  site_id: string;
  scan_id: string | null;
  url: string;
  overall_score: number;
  grade: string;
  result: Json<Record<string, unknown>>;
  citability: Json<Record<string, unknown>>;
  checked_at: ColumnType<Date, never, never>;
}
export type GeoCheckRow = Selectable<GeoChecksTable>;

export type GeoRunKind = 'visibility' | 'sov';
export type GeoRunStatus = 'queued' | 'running' | 'done' | 'failed' | 'skipped';
export type GeoRunTrigger = 'api' | 'schedule' | 'mcp' | 'console';

export interface GeoRunSite {
  id: number;
  url: string;
  label: string;
  isOwn: boolean;
}

export interface GeoRunsTable {
  id: string;
  account_id: string;
  site_id: string;
  kind: GeoRunKind;
  trigger: GeoRunTrigger;
  status: ColumnType<GeoRunStatus, GeoRunStatus | undefined, GeoRunStatus>;
  providers: string[];
  runs_per_prompt: number;
  calls_reserved: ColumnType<number | null, never, number | null>;
  /** The month calls_reserved was charged to. */
  calls_month: ColumnType<Date | null, never, string | null>;
  /** Reserved calls given back when the run finished; null until then (set once). */
  calls_refunded: ColumnType<number | null, never, never>;
  /** Provider calls sent over every attempt of the run's job (counted as each goes out). */
  calls_made: ColumnType<number, never, number>;
  sites: Json<GeoRunSite[]>;
  summary: Json<Record<string, unknown> | null>;
  error: Json<{ code: string; message: string } | null>;
  schedule_slot: ColumnType<string | null, string | null | undefined, never>;
  created_at: ColumnType<Date, never, never>;
  started_at: ColumnType<Date | null, never, Date | string>;
  finished_at: ColumnType<Date | null, never, Date | string>;
}
export type GeoRun = Selectable<GeoRunsTable>;

export interface StoredCitation {
  url: string;
  title: string | null;
  position: number;
}
export interface StoredSource {
  url: string;
  title: string | null;
}
export interface TokenUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
}

export interface GeoAnswersTable {
  id: Generated<string>;
  run_id: string;
  prompt_id: string;
  prompt: string;
  label: string;
  provider: string;
  model: string;
  iteration: number;
  answer: string;
  citations: Json<StoredCitation[]>;
  sources: Json<StoredSource[]>;
  usage: Json<TokenUsage>;
  created_at: ColumnType<Date, never, never>;
}
export type GeoAnswer = Selectable<GeoAnswersTable>;

export interface GeoCallUsageTable {
  account_id: string;
  month: ColumnType<Date, string, never>;
  calls: ColumnType<number, number | undefined, number>;
}
