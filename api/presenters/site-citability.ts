import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';
import type { WebhookEndpoint } from '../../shared/db/tables/b-sites.ts';
import type { Scan } from '../../shared/db/tables/scans.ts';
import type { WebhookDelivery } from '../../shared/db/tables/webhook-deliveries.ts';
import type { WebhookAttempt } from '../../shared/webhooks/deliver.ts';
import { AGENT_READABILITY, modelResult, presentScanB } from './scan.ts';

// Registered-site citability (B shape plus siteId, with issues and passes per dimension) and the
// webhook endpoint records of /api/v1/webhooks.

export function presentSiteCitability(site: AgentSite, scan: Scan, agentCorrelation: number | null) {
  const b = presentScanB(scan, { agentCorrelation, withFindings: true });
  const r = modelResult(scan, AGENT_READABILITY);
  const byId = new Map(r.dimensions.map((d) => [d.id, d]));
  return {
    siteId: Number(site.id),
    ...b,
    dimensions: b.dimensions.map((d) => {
      const full = byId.get(d.id)!;
      return {
        ...d,
        name: full.name,
        issues:
          full.score === null
            ? [`${full.name} could not be assessed on this page`, ...full.issues]
            : full.issues,
        passes: full.passes,
      };
    }),
  };
}

export function presentWebhook(w: WebhookEndpoint, opts: { secret?: boolean } = {}) {
  return {
    id: Number(w.id),
    url: w.url,
    events: w.events,
    site_ids: w.site_ids === null ? null : w.site_ids.map(Number),
    threshold: w.threshold,
    enabled: w.enabled,
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
    ...(opts.secret ? { secret: w.secret } : {}),
  };
}

export function presentDelivery(d: WebhookDelivery) {
  return {
    id: d.id,
    event: d.event,
    url: d.url,
    status: d.status,
    status_code: d.http_status,
    duration_ms: d.latency_ms,
    error: d.error,
    created_at: d.created_at.toISOString(),
    finished_at: d.finished_at?.toISOString() ?? null,
  };
}

export function presentAttempt(a: WebhookAttempt) {
  return {
    id: a.id,
    event: a.event,
    url: a.url,
    status: a.status,
    status_code: a.httpStatus,
    duration_ms: a.latencyMs,
    error: a.error,
    created_at: a.createdAt.toISOString(),
  };
}
