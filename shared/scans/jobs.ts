import { z } from 'zod';
import { defineJob } from '../jobs/job.ts';

// The scan_url job: gathers and scores one scans row (one pending job per scan id).
export const scanUrlJob = defineJob('scan_url', z.object({ scanId: z.string().min(1) }));
export const scanJobKey = (scanId: string) => `scan:${scanId}`;
/** A failed gather is retried once: most failures are the target's, not ours. */
export const SCAN_MAX_ATTEMPTS = 2;
