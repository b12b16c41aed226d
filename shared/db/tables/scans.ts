import type { ColumnType, Selectable } from 'kysely';

export type ScanMode = 'quick' | 'full';
export type ScanStatus = 'queued' | 'running' | 'done' | 'failed';

type Json<T> = ColumnType<T, string | undefined, string>;

export interface ScansTable {
  id: string;
  url: string;
  domain: string;
  mode: ScanMode;
  status: ColumnType<ScanStatus, ScanStatus | undefined, ScanStatus>;
  phase: string | null;
  account_id: string | null;
  error: Json<{ code: string; message: string } | null>;
  artifacts: Json<Record<string, unknown> | null>;
  results: Json<Record<string, unknown> | null>;
  /** Artifacts the scan should have and lacks; empty when complete (see shared/scans/partial.ts). */
  missing_artifacts: ColumnType<string[], string[] | undefined, string[]>;
  /** Why each missing artifact is missing, by artifact name; {} when complete. */
  partial_reasons: Json<Record<string, string>>;
  created_at: ColumnType<Date, never, never>;
  started_at: ColumnType<Date | null, Date | string | undefined, Date | string>;
  finished_at: ColumnType<Date | null, Date | string | undefined, Date | string>;
}
export type Scan = Selectable<ScansTable>;
