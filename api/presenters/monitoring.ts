import type { MonitorScan } from '../../shared/db/tables/monitor-scans.ts';
import type { MonitoredSite } from '../../shared/db/tables/monitored-sites.ts';
import type { Subscription } from '../../shared/db/tables/subscriptions.ts';
import type { StatusPageData } from '../../shared/monitoring/sites.ts';
import { gradeFor } from '../../shared/scan-engine/model.ts';
import { MONITOR_DIMENSIONS, monitoringModel } from '../../shared/scan-engine/models/monitoring.ts';

// Monitoring rows -> the JSON of interface.md: camelCase fields, epoch-millisecond timestamps.

export function presentSite(site: MonitoredSite) {
  return {
    id: Number(site.id),
    url: site.url,
    label: site.label,
    status: site.status,
    siteType: site.site_type,
    lastScannedAt: site.last_scanned_at?.getTime() ?? null,
    nextScanDueAt: site.next_scan_due_at.getTime(),
    webhook_url: site.webhook_url,
    alert_threshold: site.alert_threshold,
    indexnow_key: site.indexnow_key,
    indexnow_key_location: site.indexnow_key_location,
  };
}

/**
 * The status page's URL cannot be rebuilt here: its token is stored hashed and shown only once
 * (at subscription creation or rotation), so `statusPageUrl` is null and the token's prefix says
 * which link is current. docs/monitoring.md, "Status page".
 */
export function presentSubscription(sub: Subscription, sitesUsed: number) {
  return {
    tier: sub.plan,
    siteQuota: sub.site_quota,
    status: 'active' as const,
    scanFrequency: sub.scan_frequency,
    sitesUsed,
    statusPageUrl: null,
    statusPageTokenPrefix: sub.status_token_prefix,
  };
}

/** The members in interface order; `competitor` only when the scan has one. */
export function presentDimensionScores(scores: Record<string, number>) {
  const out: Record<string, number> = {};
  for (const id of MONITOR_DIMENSIONS) {
    const v = scores[id];
    if (v !== undefined) out[id] = v;
    else if (id !== 'competitor') out[id] = 0;
  }
  return out as {
    seo: number;
    speed: number;
    copy: number;
    social: number;
    local: number;
    competitor?: number;
    ai: number;
  };
}

export function presentLatestScan(scan: MonitorScan) {
  return {
    id: Number(scan.id),
    siteId: Number(scan.site_id),
    status: scan.status,
    overallScore: scan.overall_score,
    dimensionScores: presentDimensionScores(scan.dimension_scores),
    issues: scan.issues,
    scannedAt: scan.scanned_at.getTime(),
  };
}

export function presentComparedSite(site: MonitoredSite, scan: MonitorScan | undefined) {
  return {
    id: Number(site.id),
    url: site.url,
    label: site.label,
    latestScan: scan
      ? {
          overallScore: scan.overall_score,
          dimensionScores: presentDimensionScores(scan.dimension_scores),
          scannedAt: scan.scanned_at.getTime(),
          status: scan.status,
        }
      : null,
  };
}

function withoutCompetitor<T extends { competitor?: number }>(scores: T): Omit<T, 'competitor'> {
  const { competitor: _c, ...rest } = scores;
  return rest;
}

/** The public status page's data (also served as /status/<token>.json). */
export function presentStatusPage(data: StatusPageData) {
  return {
    generatedAt: data.now.getTime(),
    plan: data.plan,
    scanFrequency: data.scanFrequency,
    sites: data.sites.map(({ site, history }) => {
      const latest = history.at(-1);
      return {
        id: Number(site.id),
        url: site.url,
        label: site.label,
        status: latest
          ? latest.status === 'ok'
            ? ('up' as const)
            : ('down' as const)
          : ('pending' as const),
        overallScore: latest?.overall_score ?? null,
        grade: latest && latest.status === 'ok' ? gradeFor(monitoringModel, latest.overall_score) : null,
        // The page is about the site itself: its standing against competitors stays private.
        dimensionScores: latest ? withoutCompetitor(presentDimensionScores(latest.dimension_scores)) : null,
        lastScannedAt: site.last_scanned_at?.getTime() ?? null,
        nextScanDueAt: site.next_scan_due_at.getTime(),
        history: history.map((h) => ({
          scannedAt: h.scanned_at.getTime(),
          overallScore: h.overall_score,
          status: h.status,
        })),
      };
    }),
    alerts: data.alerts.map((a) => ({
      site: a.url,
      label: a.label,
      alert_type: a.alert_type,
      dimension: a.dimension,
      previous_score: a.previous_score,
      current_score: a.current_score,
      delta: a.delta,
      message: a.message,
      scanned_at: a.scanned_at.toISOString(),
    })),
  };
}
export type StatusPageView = ReturnType<typeof presentStatusPage>;
