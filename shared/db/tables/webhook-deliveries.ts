import type { ColumnType, Selectable } from 'kysely';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  event: string;
  url: string;
  subject: string | null;
  dedupe_key: string | null;
  payload: ColumnType<Record<string, unknown>, string, string>;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  http_status: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: ColumnType<Date, never, never>;
  finished_at: ColumnType<Date | null, never, Date | string>;
}
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
