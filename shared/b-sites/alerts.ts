import type { BAlertType, Thresholds } from '../db/tables/b-sites.ts';
import { agentReadabilityModel } from '../scan-engine/models/agent-readability.ts';

// Which monitoring.alert events one scheduled scan of a registered B site raises for one webhook
// endpoint, decided from the endpoint's thresholds, the previous scheduled scan and the alerts the
// endpoint has open for the site. Pure, so every rule is a table test.
//
// - score_drop: the overall score crossed the endpoint's `overall` threshold downwards (the
//   previous scheduled scan was at or above it, this one is below).
// - dimension_drop: the same for a dimension threshold (one alert per dimension that crossed).
// - site_down: the page could not be fetched (once, not again while it stays down).
// - recovered: a metric this endpoint alerted on is back at or above its threshold (or the site
//   is reachable again). `dimension` stays null (interface.md: set only for dimension_drop); the
//   message names the dimension.
// A first scheduled scan, or one after a down scan, compares with the last scan that fetched the
// page; with none there is no crossing and nothing is sent.

export const OVERALL = 'overall';
export const DOWN = 'down';
export const B_DIMENSIONS = agentReadabilityModel.dimensions.map((d) => d.id);
const NAMES = new Map(agentReadabilityModel.dimensions.map((d) => [d.id, d.name]));
export const THRESHOLD_KEYS = [OVERALL, ...B_DIMENSIONS] as const;

export interface BScores {
  overall: number;
  dimensions: Record<string, number>;
}

export interface BAlertInput {
  label: string;
  thresholds: Thresholds;
  /** The last scheduled scan before this one that fetched the page, or null. */
  previous: BScores | null;
  current: ({ status: 'ok' } & BScores) | { status: 'down'; reason: string };
  /** Metrics (overall, dimension ids, down) this endpoint alerted on and has not seen recover. */
  open: readonly string[];
}

export interface BAlertDraft {
  metric: string;
  type: BAlertType;
  dimension: string | null;
  previousScore: number;
  currentScore: number;
  delta: number;
  message: string;
}

export interface BAlertDecision {
  alerts: BAlertDraft[];
  /** The endpoint's open metrics for the site after this scan. */
  open: string[];
}

const metricName = (m: string) => (m === OVERALL ? 'overall score' : `${NAMES.get(m) ?? m} score`);
const scoreOf = (s: BScores, m: string): number | undefined => (m === OVERALL ? s.overall : s.dimensions[m]);

function draft(
  metric: string,
  type: BAlertType,
  previous: number,
  current: number,
  message: string,
): BAlertDraft {
  return {
    metric,
    type,
    dimension: type === 'dimension_drop' ? metric : null,
    previousScore: previous,
    currentScore: current,
    delta: current - previous,
    message,
  };
}

export function decideBAlerts(input: BAlertInput): BAlertDecision {
  const { label, thresholds, previous, current } = input;
  const open = new Set(input.open);
  const alerts: BAlertDraft[] = [];

  if (current.status === 'down') {
    if (!open.has(DOWN)) {
      const before = previous?.overall ?? 0;
      alerts.push(draft(DOWN, 'site_down', before, 0, `${label} could not be fetched: ${current.reason}`));
      open.add(DOWN);
    }
    return { alerts, open: [...open].sort() };
  }

  if (open.has(DOWN)) {
    alerts.push(
      draft(
        DOWN,
        'recovered',
        previous?.overall ?? 0,
        current.overall,
        `${label} is reachable again with an overall score of ${current.overall}`,
      ),
    );
    open.delete(DOWN);
  }

  for (const metric of THRESHOLD_KEYS) {
    const line = thresholds[metric];
    if (line === undefined) continue;
    const now = scoreOf(current, metric);
    if (now === undefined) continue;
    const was = previous ? scoreOf(previous, metric) : undefined;
    if (now < line) {
      if (open.has(metric) || was === undefined || was < line) continue;
      alerts.push(
        draft(
          metric,
          metric === OVERALL ? 'score_drop' : 'dimension_drop',
          was,
          now,
          `${label}: ${metricName(metric)} fell from ${was} to ${now}, below your threshold of ${line}`,
        ),
      );
      open.add(metric);
    } else if (open.has(metric)) {
      alerts.push(
        draft(
          metric,
          'recovered',
          was ?? now,
          now,
          `${label}: ${metricName(metric)} recovered to ${now}, back at or above your threshold of ${line}`,
        ),
      );
      open.delete(metric);
    }
  }
  // A threshold removed from the endpoint cannot recover any more: forget it.
  for (const m of open) if (m !== DOWN && thresholds[m] === undefined) open.delete(m);
  return { alerts, open: [...open].sort() };
}

/** The monitoring.alert body, exactly the fields of interface.md section 6. */
export function bAlertPayload(siteUrl: string, alert: BAlertDraft, scannedAt: Date) {
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
