import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { monitorAlerts } from '../metrics.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { alertPayload } from '../watch/alerts.ts';
import { deliverWebhook } from '../webhooks/deliver.ts';

export const ALERT_EVENT = 'monitoring.alert';

/**
 * Sends the site's recorded, not yet sent alerts to its webhook_url through the webhook module:
 * one attempt each, never repeated (the dedupe key is the alert's id, so a re-run after a crash
 * gets the first attempt back instead of sending again), outcome written on the alert.
 */
export async function deliverPendingAlerts(
  db: Kysely<Database>,
  config: Config,
  log: Logger,
  siteId: string,
): Promise<void> {
  const pending = await db
    .selectFrom('monitor_alerts as a')
    .innerJoin('monitored_sites as m', 'm.id', 'a.site_id')
    .select([
      'a.id',
      'a.alert_type',
      'a.dimension',
      'a.previous_score',
      'a.current_score',
      'a.delta',
      'a.message',
      'a.scanned_at',
      'm.account_id',
      'm.url',
      'm.webhook_url',
    ])
    .where('a.site_id', '=', siteId)
    .where('a.delivery_status', '=', 'pending')
    .orderBy('a.id')
    .execute();
  if (pending.length === 0) return;
  const policy = createUrlPolicy(config.SCAN_ALLOW_HOSTS);
  for (const a of pending) {
    if (!a.webhook_url) {
      // The webhook was removed after the alert was recorded: keep it for the status page only.
      await db
        .updateTable('monitor_alerts')
        .set({ delivery_status: 'no_webhook' })
        .where('id', '=', a.id)
        .execute();
      monitorAlerts.inc({ type: a.alert_type, delivery: 'no_webhook' });
      continue;
    }
    const payload = alertPayload(
      a.url,
      {
        type: a.alert_type,
        dimension: a.dimension,
        previousScore: a.previous_score,
        currentScore: a.current_score,
        delta: a.delta,
        message: a.message,
      },
      a.scanned_at,
    );
    const attempt = await deliverWebhook(db, {
      accountId: a.account_id,
      url: a.webhook_url,
      event: ALERT_EVENT,
      payload,
      policy,
      subject: `monitored_site:${siteId}`,
      dedupeKey: `${ALERT_EVENT}:${a.id}`,
    });
    if (attempt.status === 'pending') continue; // another run is sending it right now
    const outcome = attempt.status;
    await db
      .updateTable('monitor_alerts')
      .set({
        delivery_status: outcome,
        delivery_detail: attempt.error ?? (attempt.httpStatus ? `HTTP ${attempt.httpStatus}` : null),
        attempted_at: attempt.createdAt,
      })
      .where('id', '=', a.id)
      .execute();
    monitorAlerts.inc({ type: a.alert_type, delivery: outcome });
    log.info(
      { siteId, alertId: a.id, type: a.alert_type, outcome, error: attempt.error },
      'monitoring alert sent',
    );
  }
}
