import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { monitorAlerts } from '../metrics.ts';
import { ALERT_COLUMNS, type AlertOutbox, pendingAlert } from '../watch/deliver.ts';

/**
 * Where A monitoring alerts wait and go: monitor_alerts, sent to the site's webhook endpoint (signed
 * with the account's secret). An alert whose site lost its webhook is kept for the status page.
 */
export const monitorOutbox: AlertOutbox = {
  name: 'monitoring alert',
  dedupePrefix: '',
  async pending(db: Kysely<Database>, siteId: string) {
    const rows = await db
      .selectFrom('monitor_alerts as a')
      .innerJoin('monitored_sites as m', 'm.id', 'a.site_id')
      .leftJoin('webhook_endpoints as e', 'e.id', 'm.webhook_endpoint_id')
      .select([...ALERT_COLUMNS, 'm.account_id', 'm.url', 'e.url as webhook_url'])
      .where('a.site_id', '=', siteId)
      .where('a.delivery_status', '=', 'pending')
      .orderBy('a.id')
      .execute();
    return rows.map((a) =>
      pendingAlert(
        a,
        a.url,
        a.webhook_url
          ? { accountId: a.account_id, url: a.webhook_url, subject: `monitored_site:${siteId}` }
          : null,
      ),
    );
  },
  async record(db, alertId, attempt) {
    await db
      .updateTable('watch_alerts')
      .set(
        attempt
          ? {
              delivery_status: attempt.status === 'delivered' ? 'delivered' : 'failed',
              delivery_detail: attempt.error ?? (attempt.httpStatus ? `HTTP ${attempt.httpStatus}` : null),
              attempted_at: attempt.createdAt,
            }
          : { delivery_status: 'no_webhook' },
      )
      .where('id', '=', alertId)
      .execute();
  },
  counted: (type, delivery) => monitorAlerts.inc({ type, delivery }),
};
