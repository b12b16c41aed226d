import type { ColumnType, Generated, Selectable } from 'kysely';

// The scheduled watch's history and alerts for every watched site (sql/035_watch_tables.sql): a
// row belongs to an A monitored site or a B agent site, named by one of the two foreign keys.

type Json<T> = ColumnType<T, string | undefined, string>;

export type WatchAlertType = 'score_drop' | 'dimension_drop' | 'site_down' | 'recovered';
export type WatchDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'no_webhook';

export interface WatchScansTable {
  id: Generated<string>;
  monitored_site_id: ColumnType<string | null, string | null | undefined, never>;
  agent_site_id: ColumnType<string | null, string | null | undefined, never>;
  trigger: ColumnType<'on_demand' | 'scheduled', 'on_demand' | 'scheduled' | undefined, never>;
  due_at: ColumnType<Date | null, Date | string | null | undefined, never>;
  scan_id: string | null;
  scan_mode: ColumnType<'quick' | 'full' | null, 'quick' | 'full' | null | undefined, never>;
  status: 'ok' | 'down' | null;
  overall_score: number | null;
  dimension_scores: Json<Record<string, number> | null>;
  issues: Json<string[] | null>;
  error: Json<{ code: string; message: string } | null>;
  model_version: string | null;
  scanned_at: ColumnType<Date, never, never>;
}
export type WatchScan = Selectable<WatchScansTable>;

export interface WatchAlertsTable {
  id: Generated<string>;
  monitored_site_id: ColumnType<string | null, string | null | undefined, never>;
  agent_site_id: ColumnType<string | null, string | null | undefined, never>;
  watch_scan_id: string;
  webhook_id: string | null;
  metric: string | null;
  alert_type: WatchAlertType;
  dimension: string | null;
  previous_score: number;
  current_score: number;
  delta: number;
  message: string;
  scanned_at: ColumnType<Date, Date | string, never>;
  delivery_status: ColumnType<WatchDeliveryStatus, WatchDeliveryStatus | undefined, WatchDeliveryStatus>;
  delivery_detail: ColumnType<string | null, never, string | null>;
  delivery_id: string | null;
  attempted_at: ColumnType<Date | null, never, Date | string>;
  created_at: ColumnType<Date, never, never>;
}
export type WatchAlert = Selectable<WatchAlertsTable>;
