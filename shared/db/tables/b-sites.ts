import type { ColumnType, Generated, Selectable } from 'kysely';

// Variant B site scans, webhook endpoints and threshold alerts, sql/013_b_site_scans.sql.

type Json<T> = ColumnType<T, string | undefined, string>;

export interface BSiteSchedulesTable {
  site_id: string;
  next_scan_due_at: ColumnType<Date, Date | string, Date | string>;
}

export type BScanTrigger = 'on_demand' | 'scheduled';
/** Scores of one scheduled scan by dimension id; a dimension the model did not score is absent. */
export type BDimensionScores = Record<string, number>;

export interface BSiteScansTable {
  id: Generated<string>;
  site_id: string;
  trigger: BScanTrigger;
  due_at: ColumnType<Date | null, Date | string | null | undefined, never>;
  scan_id: string | null;
  status: 'ok' | 'down' | null;
  overall_score: number | null;
  dimension_scores: Json<BDimensionScores | null>;
  created_at: ColumnType<Date, never, never>;
}
export type BSiteScan = Selectable<BSiteScansTable>;

/** Integers 1-100 keyed by `overall` or a dimension id. */
export type Thresholds = Record<string, number>;

export interface WebhookEndpointsTable {
  id: Generated<string>;
  account_id: string;
  url: string;
  events: string[];
  site_ids: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  threshold: Json<Thresholds>;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** Null for a monitored site's webhook, signed with the account's secret (sql/036). */
  secret: string | null;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date | string>;
}
export type WebhookEndpoint = Selectable<WebhookEndpointsTable>;

export interface WebhookOpenAlertsTable {
  webhook_id: string;
  site_id: string;
  metric: string;
  threshold: number | null;
  opened_at: ColumnType<Date, never, never>;
}

export type BAlertType = 'score_drop' | 'dimension_drop' | 'site_down' | 'recovered';

export interface BSiteAlertsTable {
  id: Generated<string>;
  site_scan_id: string;
  webhook_id: string;
  site_id: string;
  metric: string;
  alert_type: BAlertType;
  dimension: string | null;
  previous_score: number;
  current_score: number;
  delta: number;
  message: string;
  scanned_at: ColumnType<Date, Date | string, never>;
  delivery_status: ColumnType<
    'pending' | 'delivered' | 'failed',
    'pending' | undefined,
    'delivered' | 'failed'
  >;
  delivery_id: string | null;
  created_at: ColumnType<Date, never, never>;
}
