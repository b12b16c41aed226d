import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { deliverWebhook, type WebhookAttempt } from '../webhooks/deliver.ts';
import { ALERT_EVENT } from '../webhooks/endpoints.ts';
import { type AlertDraft, type AlertType, alertPayload } from './alerts.ts';

// The one delivery path of watch alerts: a site's recorded, unsent alerts go out through the
// webhook module, one attempt each, never repeated (the dedupe key is the alert's id, so a re-run
// after a crash gets the first attempt back instead of sending again), and the outcome is written
// on the alert. Where alerts are stored and where they go is the outbox, the caller's parameter.

export interface PendingAlert {
  id: string;
  siteUrl: string;
  alert: Omit<AlertDraft, 'metric'>;
  scannedAt: Date;
  /** Where it goes; null when the site no longer has anywhere to send it. */
  target: { accountId: string; url: string; subject: string; secret?: string } | null;
}

/** The columns every alert table has, selected under the alias `a`. */
export const ALERT_COLUMNS = [
  'a.id',
  'a.alert_type',
  'a.dimension',
  'a.previous_score',
  'a.current_score',
  'a.delta',
  'a.message',
  'a.scanned_at',
] as const;

interface AlertRow {
  id: string;
  alert_type: AlertType;
  dimension: string | null;
  previous_score: number;
  current_score: number;
  delta: number;
  message: string;
  scanned_at: Date;
}

/** A stored alert as it is sent, with the site it is about and where it goes. */
export function pendingAlert(a: AlertRow, siteUrl: string, target: PendingAlert['target']): PendingAlert {
  return {
    id: a.id,
    siteUrl,
    alert: {
      type: a.alert_type,
      dimension: a.dimension,
      previousScore: a.previous_score,
      currentScore: a.current_score,
      delta: a.delta,
      message: a.message,
    },
    scannedAt: a.scanned_at,
    target,
  };
}

export interface AlertOutbox {
  /** Names the alerts in logs ("monitoring alert sent"). */
  name: string;
  /** Keeps dedupe keys of different alert tables apart. */
  dedupePrefix: string;
  pending(db: Kysely<Database>, siteId: string): Promise<PendingAlert[]>;
  /** Writes the outcome on the alert: an attempt, or none (no target). */
  record(db: Kysely<Database>, alertId: string, attempt: WebhookAttempt | null): Promise<void>;
  counted(type: AlertType, delivery: string): void;
}

export async function deliverPendingAlerts(
  deps: { db: Kysely<Database>; config: Config; log: Logger },
  outbox: AlertOutbox,
  siteId: string,
): Promise<void> {
  const { db, config, log } = deps;
  const pending = await outbox.pending(db, siteId);
  if (pending.length === 0) return;
  const policy = createUrlPolicy(config.SCAN_ALLOW_HOSTS);
  for (const a of pending) {
    if (!a.target) {
      await outbox.record(db, a.id, null);
      outbox.counted(a.alert.type, 'no_webhook');
      continue;
    }
    const attempt = await deliverWebhook(db, {
      accountId: a.target.accountId,
      url: a.target.url,
      event: ALERT_EVENT,
      payload: alertPayload(a.siteUrl, a.alert, a.scannedAt),
      policy,
      subject: a.target.subject,
      dedupeKey: `${ALERT_EVENT}:${outbox.dedupePrefix}${a.id}`,
      secret: a.target.secret,
    });
    if (attempt.status === 'pending') continue; // another run is sending it right now
    await outbox.record(db, a.id, attempt);
    outbox.counted(a.alert.type, attempt.status);
    log.info(
      {
        siteId,
        alertId: a.id,
        subject: a.target.subject,
        type: a.alert.type,
        outcome: attempt.status,
        error: attempt.error,
      },
      `${outbox.name} sent`,
    );
  }
}
