import type { ColumnType, Selectable } from 'kysely';

export type AuditOrderStatus = 'paid' | 'generating' | 'delivered' | 'failed';

type Json<T> = ColumnType<T, string | undefined, string>;

export interface AuditOrdersTable {
  id: string;
  account_id: string;
  product: string;
  target_url: string;
  webhook_url: string | null;
  status: ColumnType<AuditOrderStatus, AuditOrderStatus | undefined, AuditOrderStatus>;
  idempotency_key: string | null;
  report_token: string;
  /** The report as built by shared/audits/report.ts (AuditReport). */
  report: Json<Record<string, unknown> | null>;
  report_summary: string | null;
  error: Json<{ code: string; message: string } | null>;
  attempts: ColumnType<number, never, number>;
  created_at: ColumnType<Date, never, never>;
  started_at: ColumnType<Date | null, never, Date | string>;
  delivered_at: ColumnType<Date | null, never, Date | string>;
  failed_at: ColumnType<Date | null, never, Date | string>;
}
export type AuditOrder = Selectable<AuditOrdersTable>;
