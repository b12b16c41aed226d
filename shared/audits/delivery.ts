import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { AuditOrder } from '../db/tables/audit-orders.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { deliverWebhook, type WebhookAttempt } from '../webhooks/deliver.ts';
import { reportUrl } from './orders.ts';

export const AUDIT_DELIVERED = 'audit.delivered';

/** The audit.delivered payload of decisions.md, exactly. */
export function deliveredPayload(order: AuditOrder, config: Pick<Config, 'publicBaseUrl'>) {
  return {
    event: AUDIT_DELIVERED,
    order_id: order.id,
    product: order.product,
    target_url: order.target_url,
    status: order.status,
    delivered_at: order.delivered_at!.toISOString(),
    report_summary: order.report_summary ?? '',
    report_url: reportUrl(config, order),
  };
}

/**
 * Sends audit.delivered once per order: the dedupe key makes a re-run (after a crash between the
 * delivered commit and the send) send it if it was never attempted, and never send it twice.
 */
export async function notifyDelivered(
  db: Kysely<Database>,
  config: Config,
  order: AuditOrder,
): Promise<WebhookAttempt | null> {
  if (!order.webhook_url || order.status !== 'delivered') return null;
  return deliverWebhook(db, {
    accountId: order.account_id,
    url: order.webhook_url,
    event: AUDIT_DELIVERED,
    payload: deliveredPayload(order, config),
    policy: createUrlPolicy(config.SCAN_ALLOW_HOSTS),
    subject: order.id,
    dedupeKey: `${AUDIT_DELIVERED}:${order.id}`,
  });
}
