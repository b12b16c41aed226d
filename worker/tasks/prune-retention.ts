import { z } from 'zod';
import { expireIdempotencyKeys } from '../../shared/audits/retention.ts';
import { pruneWatch } from '../../shared/watch/retention.ts';
import { pruneWebhookDeliveries } from '../../shared/webhooks/retention.ts';
import { defineTask } from '../task.ts';

// Cron (daily): the retention periods of the small, ever-growing records (scans have their own
// prune_scans). Each step is batched and idempotent, so an interrupted run just runs again.
export default defineTask({
  name: 'prune_retention',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, config, note, signal }) {
    const webhookDeliveries = await pruneWebhookDeliveries(db, config.WEBHOOK_DELIVERY_RETENTION_DAYS, {
      signal,
    });
    const idempotencyKeys = await expireIdempotencyKeys(db, config.IDEMPOTENCY_KEY_TTL_HOURS, { signal });
    const watch = await pruneWatch(
      db,
      { alerts: config.MONITOR_ALERT_RETENTION_DAYS, history: config.WATCH_HISTORY_RETENTION_DAYS },
      { signal },
    );
    note?.({ webhookDeliveries, idempotencyKeys, ...watch });
  },
});
