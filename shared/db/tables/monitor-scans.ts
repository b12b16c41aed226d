import type { ColumnType, Generated, Selectable } from 'kysely';

type Json<T> = ColumnType<T, string, string>;

/** seo, speed, copy, social, local, ai, and competitor when the account tracks any. */
export type DimensionScores = Record<string, number>;

export interface MonitorScansTable {
  id: Generated<string>;
  site_id: string;
  due_at: ColumnType<Date, Date | string, never>;
  scan_id: string | null;
  status: 'ok' | 'down';
  overall_score: number;
  dimension_scores: Json<DimensionScores>;
  issues: Json<string[]>;
  error: ColumnType<{ code: string; message: string } | null, string | undefined, string>;
  model_version: string;
  /** Null only on rows recorded before the mode was kept whose scan is gone: compared with nothing. */
  scan_mode: ColumnType<'quick' | 'full' | null, 'quick' | 'full' | null | undefined, never>;
  scanned_at: ColumnType<Date, never, never>;
}
export type MonitorScan = Selectable<MonitorScansTable>;
