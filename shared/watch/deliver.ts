import { type Kysely, sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { deliverWebhook, type WebhookAttempt } from '../webhooks/deliver.ts';
import { ALERT_EVENT } from '../webhooks/endpoints.ts';
import { type AlertType, alertPayload } from './alerts.ts';

// The one outbox of watch alerts: a site's recorded, unsent alerts in watch_alerts go out through
// the webhook module, one attempt each, never repeated (the dedupe key is the alert's id, so a
// re-run after a crash gets the first attempt back instead of sending again), and the outcome is
// written on the alert. An alert goes to its own endpoint (B: the endpoint whose thresholds
// raised it) or else to the endpoint its site points at (A), signed with the endpoint's own
// secret or, when it has none, the account's. An alert with nowhere to go is kept, marked
// no_webhook, for the status page.

/** The column of watch_scans and watch_alerts that names a watched site of one kind. */
export type WatchSiteColumn = 'monitored_site_id' | 'agent_site_id';

/** What differs between the kinds of watched site in sending their alerts. */
export interface AlertOutbox {
  /** Names the alerts in logs ("monitoring alert sent"). */
  name: string;
  site: WatchSiteColumn;
  /** Keeps the dedupe keys of the kinds apart: their alerts once had ids from two tables. */
  dedupePrefix: string;
  /** The subject of a delivery in the webhook deliveries log. */
  subject(siteId: string, endpointId: string): string;
  counted(type: AlertType, delivery: string): void;
}

/** The site's alerts waiting to be sent, with the endpoint each goes to (null: none any more). */
function pendingAlerts(db: Kysely<Database>, outbox: AlertOutbox, siteId: string) {
  return db
    .selectFrom('watch_alerts as a')
    .leftJoin('monitored_sites as m', 'm.id', 'a.monitored_site_id')
    .leftJoin('agent_sites as s', 's.id', 'a.agent_site_id')
    .leftJoin('webhook_endpoints as e', (j) =>
      j.on((eb) => eb('e.id', '=', eb.fn.coalesce('a.webhook_id', 'm.webhook_endpoint_id'))),
    )
    .select([
      'a.id',
      'a.alert_type as type',
      'a.dimension',
      'a.previous_score as previousScore',
      'a.current_score as currentScore',
      'a.delta',
      'a.message',
      'a.scanned_at',
      sql<string>`coalesce(m.url, s.url)`.as('site_url'),
      'e.id as endpoint_id',
      'e.url as endpoint_url',
      'e.secret',
      'e.account_id',
    ])
    .where(`a.${outbox.site}`, '=', siteId)
    .where('a.delivery_status', '=', 'pending')
    .orderBy('a.id')
    .execute();
}

/**
 * Writes the outcome on the alert: an attempt (its outcome, detail and delivery id), or none (no
 * endpoint). Each variant's view shows its own columns of it.
 */
async function recordOutcome(db: Kysely<Database>, alertId: string, attempt: WebhookAttempt | null) {
  await db
    .updateTable('watch_alerts')
    .set(
      attempt
        ? {
            delivery_status: attempt.status === 'delivered' ? 'delivered' : 'failed',
            delivery_detail: attempt.error ?? (attempt.httpStatus ? `HTTP ${attempt.httpStatus}` : null),
            attempted_at: attempt.createdAt,
            delivery_id: attempt.id,
          }
        : { delivery_status: 'no_webhook' },
    )
    .where('id', '=', alertId)
    .execute();
}

export async function deliverPendingAlerts(
  deps: { db: Kysely<Database>; config: Config; log: Logger },
  outbox: AlertOutbox,
  siteId: string,
): Promise<void> {
  const { db, config, log } = deps;
  const pending = await pendingAlerts(db, outbox, siteId);
  if (pending.length === 0) return;
  const policy = createUrlPolicy(config.SCAN_ALLOW_HOSTS);
  for (const a of pending) {
    if (a.endpoint_id === null || a.endpoint_url === null || a.account_id === null) {
      await recordOutcome(db, a.id, null);
      outbox.counted(a.type, 'no_webhook');
      continue;
    }
    const subject = outbox.subject(siteId, a.endpoint_id);
    const attempt = await deliverWebhook(db, {
      accountId: a.account_id,
      url: a.endpoint_url,
      event: ALERT_EVENT,
      payload: alertPayload(a.site_url, a, a.scanned_at),
      policy,
      subject,
      dedupeKey: `${ALERT_EVENT}:${outbox.dedupePrefix}${a.id}`,
      secret: a.secret ?? undefined,
    });
    if (attempt.status === 'pending') continue; // another run is sending it right now
    await recordOutcome(db, a.id, attempt);
    outbox.counted(a.type, attempt.status);
    log.info(
      { siteId, alertId: a.id, subject, type: a.type, outcome: attempt.status, error: attempt.error },
      `${outbox.name} sent`,
    );
  }
}
