import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { bSiteAlerts } from '../metrics.ts';
import type { AlertOutbox } from '../watch/deliver.ts';
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
        'a.id',
        'a.alert_type',
        'a.dimension',
        'a.previous_score',
        'a.current_score',
        'a.delta',
        'a.message',
        'a.scanned_at',
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
    return rows.map((a) => ({
      id: a.id,
      siteUrl: a.site_url,
      alert: {
        type: a.alert_type,
        dimension: a.dimension,
        previousScore: a.previous_score,
        currentScore: a.current_score,
        delta: a.delta,
        message: a.message,
      },
      scannedAt: a.scanned_at,
      target: {
        accountId: a.account_id,
        url: a.webhook_url,
        subject: endpointSubject(a.webhook_id),
        secret: a.secret,
      },
    }));
  },
  async record(db, alertId, attempt) {
    if (!attempt) return; // every B alert has its endpoint (deleting one deletes its alerts)
    await db
      .updateTable('b_site_alerts')
      .set({
        delivery_status: attempt.status === 'delivered' ? 'delivered' : 'failed',
        delivery_id: attempt.id,
      })
      .where('id', '=', alertId)
      .execute();
  },
  counted: (type, delivery) => bSiteAlerts.inc({ type, delivery }),
};
