import client from 'prom-client';

// One registry per process; both process kinds (api, worker) expose it on /metrics.
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'sightline_' });

/** One series of a RouteDurations histogram: its labels, its bucket counts, sum and count. */
interface Series {
  labels: Record<string, string>;
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * A histogram of request durations by route, method and status, observed on every API call.
 * Written for that path: a series is found by three map look-ups and its bucket by a short scan,
 * where prom-client's Histogram validates and hashes the label object on every observation. It is
 * exposed through the registry like any prom-client metric.
 */
class RouteDurations {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** Series by route, then method, then status: three look-ups, no key built per call. */
  private routes = new Map<string, Map<string, Map<number, Series>>>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: number[],
  ) {}

  observe(route: string, method: string, status: number, seconds: number): void {
    let methods = this.routes.get(route);
    if (!methods) {
      methods = new Map();
      this.routes.set(route, methods);
    }
    let statuses = methods.get(method);
    if (!statuses) {
      statuses = new Map();
      methods.set(method, statuses);
    }
    let s = statuses.get(status);
    if (!s) {
      s = {
        labels: { route, method, status: String(status) },
        buckets: this.bounds.map(() => 0),
        sum: 0,
        count: 0,
      };
      statuses.set(status, s);
    }
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        s.buckets[i]!++;
        break;
      }
    }
    s.sum += seconds;
    s.count++;
  }

  private *series(): Iterable<Series> {
    for (const methods of this.routes.values())
      for (const statuses of methods.values()) yield* statuses.values();
  }

  /** The series in prom-client's shape: cumulative buckets (le, then +Inf), sum and count. */
  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.series()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.buckets[i]!;
        values.push({ labels: { ...s.labels, le }, value: acc, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.routes.clear();
  }
}

export const httpRequestDuration = new RouteDurations(
  'sightline_http_request_duration_seconds',
  'API request duration by route, method and status',
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);
registry.registerMetric(httpRequestDuration as unknown as client.Metric);

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
  help: 'Scan time by mode and phase (quick, rendered, lighthouse, score, total)',
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

export const auditOrders = new client.Counter({
  name: 'sightline_audit_orders_total',
  help: 'Audit order transitions, by product and the state entered (paid, generating, delivered, failed)',
  labelNames: ['product', 'state'] as const,
  registers: [registry],
});

export const auditGenerationDuration = new client.Histogram({
  name: 'sightline_audit_generation_duration_seconds',
  help: 'Audit report generation time (crawl, checks, report), by product and outcome',
  labelNames: ['product', 'outcome'] as const,
  buckets: [1, 2.5, 5, 10, 20, 40, 80, 160, 300, 600, 900],
  registers: [registry],
});

export const webhookDeliveries = new client.Counter({
  name: 'sightline_webhook_deliveries_total',
  help: 'Outbound webhook attempts, by event and outcome (delivered, failed)',
  labelNames: ['event', 'outcome'] as const,
  registers: [registry],
});

export const webhookLatency = new client.Histogram({
  name: 'sightline_webhook_delivery_duration_seconds',
  help: 'Outbound webhook attempt time until the answer (or the error), by event',
  labelNames: ['event'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const monitorSitesDue = new client.Gauge({
  name: 'sightline_monitor_sites_due',
  help: 'Monitored sites found due by the latest fan-out run (its backlog; near 0 between runs)',
  registers: [registry],
});

export const monitorScansScheduled = new client.Counter({
  name: 'sightline_monitor_scans_scheduled_total',
  help: 'Monitor scan jobs enqueued by the fan-out',
  registers: [registry],
});

export const monitorFanoutDuration = new client.Histogram({
  name: 'sightline_monitor_fanout_duration_seconds',
  help: 'Time of one monitor fan-out run (all its batches)',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const monitorScans = new client.Counter({
  name: 'sightline_monitor_scans_total',
  help: 'Monitor scans recorded, by site type (own, competitor) and outcome (ok, down)',
  labelNames: ['site_type', 'outcome'] as const,
  registers: [registry],
});

export const monitorAlerts = new client.Counter({
  name: 'sightline_monitor_alerts_total',
  help: 'Monitoring alerts, by type and delivery outcome (delivered, failed, no_webhook)',
  labelNames: ['type', 'delivery'] as const,
  registers: [registry],
});

export const geoProviderCalls = new client.Counter({
  name: 'sightline_geo_provider_calls_total',
  help: 'GEO answer-engine calls, by provider and outcome (ok, retried, or the error code)',
  labelNames: ['provider', 'outcome'] as const,
  registers: [registry],
});

export const bSiteScans = new client.Counter({
  name: 'sightline_b_site_scans_total',
  help: 'Weekly scans of registered B sites recorded, by outcome (ok, down)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const bSiteAlerts = new client.Counter({
  name: 'sightline_b_site_alerts_total',
  help: 'Threshold alerts of registered B sites, by type and delivery outcome (delivered, failed)',
  labelNames: ['type', 'delivery'] as const,
  registers: [registry],
});
