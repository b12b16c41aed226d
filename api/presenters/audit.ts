import { estimatedDeliveryMinutes, reportUrl } from '../../shared/audits/orders.ts';
import type { Config } from '../../shared/config.ts';
import type { AuditOrder } from '../../shared/db/tables/audit-orders.ts';

// Order rows -> the audit order of interface.md: creation fields first, then what polling adds
// once there is something to add (delivered_at, report_summary and report_url; or error).

export function presentOrder(order: AuditOrder, config: Config) {
  return {
    order_id: order.id,
    status: order.status,
    product: order.product,
    target_url: order.target_url,
    webhook_url: order.webhook_url,
    created_at: order.created_at.toISOString(),
    ...(order.status === 'delivered'
      ? {
          delivered_at: order.delivered_at!.toISOString(),
          report_summary: order.report_summary ?? '',
          report_url: reportUrl(config, order),
          report_json_url: reportUrl(config, order, 'json'),
        }
      : {}),
    ...(order.status === 'failed' && order.error ? { error: order.error } : {}),
  };
}

/** The 201 (and its idempotent replays): the order plus the delivery estimate and, with a webhook, its secret. */
export function presentCreated(order: AuditOrder, config: Config, webhookSecret: string | null) {
  return {
    ...presentOrder(order, config),
    estimated_delivery_minutes: estimatedDeliveryMinutes(config),
    ...(webhookSecret ? { webhook_secret: webhookSecret } : {}),
  };
}
