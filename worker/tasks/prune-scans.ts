import { z } from 'zod';
import { pruneScans } from '../../shared/scans/retention.ts';
import { defineTask } from '../task.ts';

// Cron (daily): scans older than SCAN_RETENTION_DAYS (shared/scans/retention.ts).
export default defineTask({
  name: 'prune_scans',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, config, note, signal }) {
    const deleted = await pruneScans(db, config.SCAN_RETENTION_DAYS, signal);
    note?.({ deleted, retentionDays: config.SCAN_RETENTION_DAYS });
  },
});
