import type { TaskDef } from '../task.ts';
import bSiteScan from './b-site-scan.ts';
import bSitesFanout from './b-sites-fanout.ts';
import foldAgentPages from './fold-agent-pages.ts';
import generateAudit from './generate-audit.ts';
import geoFanout from './geo-fanout.ts';
import geoRun from './geo-run.ts';
import monitorFanout from './monitor-fanout.ts';
import monitorScan from './monitor-scan.ts';
import probe from './probe.ts';
import pruneAgentEvents from './prune-agent-events.ts';
import pruneRateLimits from './prune-rate-limits.ts';
import pruneRetention from './prune-retention.ts';
import pruneScans from './prune-scans.ts';
import reapDeadWorkers from './reap-dead-workers.ts';
import relabelAgentEvents from './relabel-agent-events.ts';
import scanUrl from './scan-url.ts';
import syncAgentCatalogue from './sync-agent-catalogue.ts';
import verifyAgentVisits from './verify-agent-visits.ts';

// Every task, one file each (file name kebab-case, task name snake_case).
export const tasks: TaskDef[] = [
  scanUrl,
  pruneRateLimits,
  pruneAgentEvents,
  foldAgentPages,
  pruneScans,
  pruneRetention,
  reapDeadWorkers,
  probe,
  monitorFanout,
  monitorScan,
  generateAudit,
  geoRun,
  geoFanout,
  bSitesFanout,
  bSiteScan,
  verifyAgentVisits,
  relabelAgentEvents,
  syncAgentCatalogue,
];
