import type { AlertType } from '../db/tables/monitor-alerts.ts';
import { monitoringModel } from '../scan-engine/models/monitoring.ts';

// Which alerts one own-site scan raises, decided from the scan, the scans before it and the
// site's open incident. Pure, so every rule is a table test. Competitor sites never get here.
//
// - score_drop: the overall score fell by more than alert_threshold since the last scan that
//   could fetch the page.
// - dimension_drop: one per measured dimension that fell by more than alert_threshold (the
//   competitor standing is excluded: it moves when competitors change, not when the site does).
// - site_down: the page could not be fetched, on the first scan that finds it so (not again
//   while it stays down).
// - recovered: a score_drop or site_down opened an incident, and a scan finds the site up and
//   its overall score back within alert_threshold of the score before the incident.

export interface ScanScores {
  overall: number;
  dimensions: Record<string, number>;
}

export interface AlertInput {
  site: { label: string; alertThreshold: number; incidentBaseline: number | null };
  /** The scan right before this one (any status), or null on a site's first scan. */
  previous: { status: 'ok' | 'down'; overall: number } | null;
  /** The latest scan before this one that fetched the page. */
  lastOk: ScanScores | null;
  /** Whether lastOk was scored by the model version scoring now (drops compare only then). */
  comparable?: boolean;
  current: ({ status: 'ok' } & ScanScores) | { status: 'down'; reason: string };
}

export interface AlertDraft {
  type: AlertType;
  dimension: string | null;
  previousScore: number;
  currentScore: number;
  delta: number;
  message: string;
}

export interface AlertDecision {
  alerts: AlertDraft[];
  /** The site's incident baseline after this scan: null when no incident is open. */
  incidentBaseline: number | null;
}

const DIMENSION_NAMES = new Map(monitoringModel.dimensions.map((d) => [d.id, d.name]));
const ALERTING_DIMENSIONS = monitoringModel.dimensions.filter((d) => d.id !== 'competitor').map((d) => d.id);

const draft = (
  type: AlertType,
  dimension: string | null,
  previous: number,
  current: number,
  message: string,
) => ({
  type,
  dimension,
  previousScore: previous,
  currentScore: current,
  delta: current - previous,
  message,
});

export function decideAlerts(input: AlertInput): AlertDecision {
  const { site, previous, lastOk, current } = input;
  const threshold = site.alertThreshold;
  const alerts: AlertDraft[] = [];

  if (current.status === 'down') {
    const before = lastOk?.overall ?? 0;
    if (previous?.status !== 'down') {
      alerts.push(
        draft('site_down', null, before, 0, `${site.label} could not be fetched: ${current.reason}`),
      );
    }
    return { alerts, incidentBaseline: site.incidentBaseline ?? before };
  }

  let baseline = site.incidentBaseline;
  if (lastOk && input.comparable !== false) {
    const fell = lastOk.overall - current.overall;
    if (fell > threshold) {
      alerts.push(
        draft(
          'score_drop',
          null,
          lastOk.overall,
          current.overall,
          `${site.label}: overall score fell from ${lastOk.overall} to ${current.overall} (${-fell}), more than the alert threshold of ${threshold} points`,
        ),
      );
      baseline ??= lastOk.overall;
    }
    for (const id of ALERTING_DIMENSIONS) {
      const was = lastOk.dimensions[id];
      const now = current.dimensions[id];
      if (was === undefined || now === undefined || was - now <= threshold) continue;
      alerts.push(
        draft(
          'dimension_drop',
          id,
          was,
          now,
          `${site.label}: ${DIMENSION_NAMES.get(id) ?? id} score fell from ${was} to ${now} (${now - was})`,
        ),
      );
    }
  }

  const open = site.incidentBaseline;
  const dropped = alerts.some((a) => a.type === 'score_drop');
  if (open !== null && !dropped && current.overall >= open - threshold) {
    const before = previous?.overall ?? 0;
    const how =
      previous?.status === 'down'
        ? `is reachable again with an overall score of ${current.overall}`
        : `recovered: overall score is back to ${current.overall} (from ${before})`;
    alerts.push(
      draft(
        'recovered',
        null,
        before,
        current.overall,
        `${site.label} ${how}; it was ${open} before the incident`,
      ),
    );
    baseline = null;
  }
  return { alerts, incidentBaseline: baseline };
}

/** The monitoring.alert webhook body, exactly the fields of interface.md section 6. */
export function alertPayload(siteUrl: string, alert: AlertDraft, scannedAt: Date) {
  return {
    event: 'monitoring.alert',
    site: siteUrl,
    alert_type: alert.type,
    dimension: alert.dimension,
    previous_score: alert.previousScore,
    current_score: alert.currentScore,
    delta: alert.delta,
    message: alert.message,
    scanned_at: scannedAt.toISOString(),
  };
}
