import { defineSlotJob } from '../watch/slot-job.ts';

// The monitor_scan job: one scheduled scan of one monitored site for one schedule slot.
export const monitorScanJob = defineSlotJob('monitor_scan');
export const MONITOR_SCAN_TASK = monitorScanJob.name;
/** Below interactive work (priority 0): a backlog of monitor scans never delays an API scan. */
export const MONITOR_SCAN_PRIORITY = 10;
export const MONITOR_SCAN_ATTEMPTS = 3;
/** One pending scan per site: a newer claim replaces a job that has not started. */
export const MONITOR_JOB_KEY_PREFIX = 'monitor_scan:';
export const monitorJobKey = (siteId: string) => MONITOR_JOB_KEY_PREFIX + siteId;
