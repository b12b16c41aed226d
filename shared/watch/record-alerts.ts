import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { AlertDraft } from './alerts.ts';

/**
 * Whose alerts these are: an A monitored site (pending delivery when it has a webhook, else kept
 * for the status page only), or a B agent site and the endpoint they go to.
 */
export type AlertOwner =
  | { monitored_site_id: string; delivery_status: 'pending' | 'no_webhook' }
  | { agent_site_id: string; webhook_id: string };

/**
 * Records one slot's alert drafts in watch_alerts. Never twice: a re-run of the slot meets the
 * table's once-per-scan unique indexes and adds nothing. Run inside the slot's transaction.
 */
export async function recordAlerts(
  trx: Kysely<Database>,
  scan: { id: string; scannedAt: Date },
  owner: AlertOwner,
  alerts: AlertDraft[],
): Promise<void> {
  if (alerts.length === 0) return;
  await trx
    .insertInto('watch_alerts')
    .values(
      alerts.map((a) => ({
        ...owner,
        watch_scan_id: scan.id,
        metric: a.metric,
        alert_type: a.type,
        dimension: a.dimension,
        previous_score: a.previousScore,
        current_score: a.currentScore,
        delta: a.delta,
        message: a.message,
        scanned_at: scan.scannedAt,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}
