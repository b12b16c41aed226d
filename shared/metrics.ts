import client from 'prom-client';

// One registry per process; both process kinds (api, worker) expose it on /metrics.
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'sightline_' });

export const httpRequestDuration = new client.Histogram({
  name: 'sightline_http_request_duration_seconds',
  help: 'API request duration by route, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const rateLimited = new client.Counter({
  name: 'sightline_rate_limited_total',
  help: 'Requests refused with 429, by bucket kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const jobsTotal = new client.Counter({
  name: 'sightline_jobs_total',
  help: 'Jobs run, by task and outcome (success, failure)',
  labelNames: ['task', 'outcome'] as const,
  registers: [registry],
});

export const jobDuration = new client.Histogram({
  name: 'sightline_job_duration_seconds',
  help: 'Job run time by task',
  labelNames: ['task'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
  registers: [registry],
});

export const jobsAdded = new client.Counter({
  name: 'sightline_jobs_added_total',
  help: 'Jobs enqueued by this process, by task',
  labelNames: ['task'] as const,
  registers: [registry],
});

/** Queue depth is read from Postgres at scrape time; the query is installed by the process. */
export function registerQueueDepth(
  read: () => Promise<{ task: string; state: string; count: number }[]>,
): void {
  if (registry.getSingleMetric('sightline_queue_jobs')) return;
  new client.Gauge({
    name: 'sightline_queue_jobs',
    help: 'Jobs in the queue by task and state (waiting, running, failed)',
    labelNames: ['task', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const row of await read()) this.set({ task: row.task, state: row.state }, row.count);
      } catch {
        // a scrape during a database outage reports no queue rather than failing the scrape
      }
    },
  });
}

export const scanDuration = new client.Histogram({
  name: 'sightline_scan_duration_seconds',
  help: 'Scan time by mode and phase (quick, rendered, lighthouse, total)',
  labelNames: ['mode', 'phase'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 300],
  registers: [registry],
});

export const gathererFailures = new client.Counter({
  name: 'sightline_gatherer_failures_total',
  help: 'Artifacts that could not be gathered, by gatherer',
  labelNames: ['gatherer'] as const,
  registers: [registry],
});
