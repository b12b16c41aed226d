import type { ColumnType, Generated, Selectable } from 'kysely';

export type SiteType = 'own' | 'competitor';

export interface MonitoredSitesTable {
  id: Generated<string>;
  account_id: string;
  url: string;
  label: string;
  site_type: SiteType;
  status: ColumnType<'active' | 'paused', 'active' | 'paused' | undefined, 'active' | 'paused'>;
  /** The site's alert webhook (own sites only), a webhook_endpoints row (sql/036). */
  webhook_endpoint_id: ColumnType<string | null, string | null | undefined, string | null>;
  alert_threshold: ColumnType<number, number | undefined, number>;
  last_scanned_at: ColumnType<Date | null, never, Date | string>;
  next_scan_due_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** The site's IndexNow key, declared by the subscriber (verified at /{key}.txt or the location). */
  indexnow_key: ColumnType<string | null, string | null | undefined, string | null>;
  indexnow_key_location: ColumnType<string | null, string | null | undefined, string | null>;
  incident_baseline: ColumnType<number | null, never, number | null>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date | string>;
}
export type MonitoredSiteRow = Selectable<MonitoredSitesTable>;
/** A site as read with its webhook's URL (shared/monitoring/site-rows.ts). */
export type MonitoredSite = MonitoredSiteRow & { webhook_url: string | null };
