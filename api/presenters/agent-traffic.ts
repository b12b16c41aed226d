import type { SiteScanSummary } from '../../shared/agent-sites/sites.ts';
import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';

export function presentRegisteredSite(site: AgentSite, scan?: SiteScanSummary) {
  return {
    id: Number(site.id),
    trackingId: site.tracking_id,
    url: site.url,
    domain: site.domain,
    label: site.label,
    createdAt: site.created_at.toISOString(),
    lastScanAt: scan?.lastScanAt ? scan.lastScanAt.toISOString() : null,
    overallScore: scan?.overallScore ?? null,
    grade: scan?.grade ?? null,
  };
}
