import type { ColumnType, Generated, Selectable } from 'kysely';

export type AlertType = 'score_drop' | 'dimension_drop' | 'site_down' | 'recovered';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'no_webhook';

export interface MonitorAlertsTable {
  id: Generated<string>;
  site_id: string;
  monitor_scan_id: string;
  alert_type: AlertType;
  dimension: string | null;
  previous_score: number;
  current_score: number;
  delta: number;
  message: string;
  scanned_at: ColumnType<Date, Date | string, never>;
  delivery_status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  delivery_detail: ColumnType<string | null, never, string | null>;
  attempted_at: ColumnType<Date | null, never, Date | string>;
  created_at: ColumnType<Date, never, never>;
}
export type MonitorAlert = Selectable<MonitorAlertsTable>;
