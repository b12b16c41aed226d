import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { bSiteAlerts } from '../metrics.ts';
import { ALERT_COLUMNS, type AlertOutbox, pendingAlert } from '../watch/deliver.ts';
import { endpointSubject } from '../webhooks/endpoints.ts';

/**
 * Where B threshold alerts wait and go: b_site_alerts, each sent to the webhook endpoint that
 * raised it, signed with that endpoint's own secret.
 */
export const bSiteOutbox: AlertOutbox = {
  name: 'B threshold alert',
  dedupePrefix: 'b:',
  async pending(db: Kysely<Database>, siteId: string) {
    const rows = await db
      .selectFrom('b_site_alerts as a')
      .innerJoin('webhook_endpoints as w', 'w.id', 'a.webhook_id')
      .innerJoin('agent_sites as s', 's.id', 'a.site_id')
      .select([
        ...ALERT_COLUMNS,
        'w.id as webhook_id',
        'w.url as webhook_url',
        'w.secret',
        'w.account_id',
        's.url as site_url',
      ])
      .where('a.site_id', '=', siteId)
      .where('a.delivery_status', '=', 'pending')
      .orderBy('a.id')
      .execute();
    return rows.map((a) =>
      pendingAlert(a, a.site_url, {
        accountId: a.account_id,
        url: a.webhook_url,
        subject: endpointSubject(a.webhook_id),
        secret: a.secret ?? undefined,
      }),
    );
  },
  async record(db, alertId, attempt) {
    if (!attempt) return; // every B alert has its endpoint (deleting one deletes its alerts)
    await db
      .updateTable('watch_alerts')
      .set({
        delivery_status: attempt.status === 'delivered' ? 'delivered' : 'failed',
        delivery_id: attempt.id,
      })
      .where('id', '=', alertId)
      .execute();
  },
  counted: (type, delivery) => bSiteAlerts.inc({ type, delivery }),
};
