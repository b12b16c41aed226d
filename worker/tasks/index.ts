import type { TaskDef } from '../task.ts';
import bSiteScan from './b-site-scan.ts';
import bSitesFanout from './b-sites-fanout.ts';
import generateAudit from './generate-audit.ts';
import monitorFanout from './monitor-fanout.ts';
import monitorScan from './monitor-scan.ts';
import probe from './probe.ts';
import pruneRateLimits from './prune-rate-limits.ts';
import pruneScans from './prune-scans.ts';
import reapDeadWorkers from './reap-dead-workers.ts';
import scanUrl from './scan-url.ts';

// Every task, one file each (file name kebab-case, task name snake_case).
export const tasks: TaskDef[] = [
  scanUrl,
  pruneRateLimits,
  pruneScans,
  reapDeadWorkers,
  probe,
  monitorFanout,
  monitorScan,
  generateAudit,
  bSitesFanout,
  bSiteScan,
];
