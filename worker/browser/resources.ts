import client from 'prom-client';
import type { Config } from '../../shared/config.ts';
import { registry } from '../../shared/metrics.ts';
import { createUrlPolicy } from '../../shared/net/url-policy.ts';
import type { BrowserPool, ScanBrowser } from '../../shared/scan-engine/browser.ts';
import { type ClosableLighthouseRunner, createLighthouseRunner, lighthouseStats } from './lighthouse.ts';
import { MemoryGuard } from './memory.ts';
import { createBrowserPool } from './pool.ts';

// One browser pool and one Lighthouse runner (a warm child driving the pool's browser) per worker
// process, made on the first full scan (quick-only workers never start Chromium) and closed on
// shutdown.

let resources: (ScanBrowser & { lighthouse: ClosableLighthouseRunner }) | undefined;

/**
 * The process's browser and Lighthouse runner. Their policy proxy allows `allowHosts` (default
 * SCAN_ALLOW_HOSTS): the same hosts the scan's HTTP fetch allows, or the render and Lighthouse
 * would load the proxy's refusal instead of the page.
 */
export function browserResources(config: Config, allowHosts = config.SCAN_ALLOW_HOSTS): ScanBrowser {
  if (!resources) {
    const policy = createUrlPolicy(allowHosts);
    const chromiumPath = config.CHROMIUM_PATH;
    // One budget for everything Chromium this process runs: the pool's browser and Lighthouse's.
    const memory = new MemoryGuard(config.BROWSER_MEMORY_BUDGET_MB);
    const pool = createBrowserPool({ policy, concurrency: config.BROWSER_CONCURRENCY, chromiumPath, memory });
    resources = { pool, lighthouse: createLighthouseRunner({ pool, memory }) };
    registerBrowserMetrics(resources.pool);
  }
  return resources;
}

export async function closeBrowserResources(): Promise<void> {
  const r = resources;
  resources = undefined;
  await r?.lighthouse.close();
  await r?.pool.close();
}

function registerBrowserMetrics(pool: BrowserPool): void {
  if (registry.getSingleMetric('sightline_browser_contexts_in_use')) return;
  new client.Gauge({
    name: 'sightline_browser_contexts_in_use',
    help: 'Browser contexts open in this worker process',
    registers: [registry],
    collect() {
      this.set(resources?.pool.stats.contextsOpen ?? 0);
    },
  });
  new client.Gauge({
    name: 'sightline_browser_launches',
    help: 'Chromium launches by this worker process (relaunches after crashes included)',
    registers: [registry],
    collect() {
      this.set(pool.stats.launches);
    },
  });
  new client.Gauge({
    name: 'sightline_lighthouse_runs',
    help: 'Lighthouse runs by this worker process, by state (total, killed by deadline, running, queued)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'total' }, lighthouseStats.runs);
      this.set({ state: 'killed' }, lighthouseStats.killed);
      this.set({ state: 'running' }, lighthouseStats.running);
      this.set({ state: 'queued' }, lighthouseStats.queued);
    },
  });
}
