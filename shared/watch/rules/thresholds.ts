import type { Thresholds } from '../../db/tables/b-sites.ts';
import type { ScoringModel } from '../../scan-engine/model.ts';
import {
  type AlertDraft,
  DOWN,
  draft,
  metricName,
  OVERALL,
  scoreOf,
  type WatchCurrent,
  type WatchScores,
} from '../alerts.ts';

// The threshold rule set (B registered sites): which alerts one scheduled scan raises for one
// webhook endpoint, decided from the endpoint's thresholds, the previous scheduled scan and the
// alerts the endpoint has open for the site. Pure, so every rule is a table test.
//
// - score_drop: the overall score crossed the endpoint's `overall` threshold downwards (the
//   previous scheduled scan was at or above it, this one is below).
// - dimension_drop: the same for a dimension threshold (one alert per dimension that crossed).
// - site_down: the page could not be fetched (once, not again while it stays down).
// - recovered: a metric this endpoint alerted on is back at or above its threshold (or the site
//   is reachable again). `dimension` stays null (interface.md: set only for dimension_drop); the
//   message names the dimension.
// A first scheduled scan, or one after a down scan, compares with the last scan that fetched the
// page; with none there is no crossing and nothing is sent. A dimension absent from a scan (not
// scored) neither crosses nor recovers.

export interface ThresholdInput {
  label: string;
  thresholds: Thresholds;
  /** The last scheduled scan before this one that fetched the page, or null. */
  previous: WatchScores | null;
  current: WatchCurrent;
  /** Metrics (overall, dimension ids, down) this endpoint alerted on and has not seen recover. */
  open: readonly string[];
}

export interface ThresholdDecision {
  alerts: AlertDraft[];
  /** The endpoint's open metrics for the site after this scan. */
  open: string[];
}

/** The metrics a threshold can be set on: overall and the model's dimensions. */
export const thresholdKeys = (model: Pick<ScoringModel, 'dimensions'>) => [
  OVERALL,
  ...model.dimensions.map((d) => d.id),
];

function crossing(
  model: Pick<ScoringModel, 'dimensions'>,
  input: ThresholdInput,
  metric: string,
  now: WatchScores,
  open: Set<string>,
): AlertDraft | null {
  const line = input.thresholds[metric];
  const is = scoreOf(now, metric);
  if (line === undefined || is === undefined) return null;
  const was = input.previous ? scoreOf(input.previous, metric) : undefined;
  const name = metricName(model, metric);
  if (is < line) {
    if (open.has(metric) || was === undefined || was < line) return null;
    open.add(metric);
    const type = metric === OVERALL ? 'score_drop' : 'dimension_drop';
    return draft(
      metric,
      type,
      was,
      is,
      `${input.label}: ${name} fell from ${was} to ${is}, below your threshold of ${line}`,
    );
  }
  if (!open.has(metric)) return null;
  open.delete(metric);
  return draft(
    metric,
    'recovered',
    was ?? is,
    is,
    `${input.label}: ${name} recovered to ${is}, back at or above your threshold of ${line}`,
  );
}

export function decideThresholdAlerts(
  model: Pick<ScoringModel, 'dimensions'>,
  input: ThresholdInput,
): ThresholdDecision {
  const { label, thresholds, previous, current } = input;
  const open = new Set(input.open);
  const alerts: AlertDraft[] = [];

  if (current.status === 'down') {
    if (!open.has(DOWN)) {
      const before = previous?.overall ?? 0;
      alerts.push(draft(DOWN, 'site_down', before, 0, `${label} could not be fetched: ${current.reason}`));
      open.add(DOWN);
    }
    return { alerts, open: [...open].sort() };
  }

  if (open.has(DOWN)) {
    const message = `${label} is reachable again with an overall score of ${current.overall}`;
    alerts.push(draft(DOWN, 'recovered', previous?.overall ?? 0, current.overall, message));
    open.delete(DOWN);
  }
  for (const metric of thresholdKeys(model)) {
    const alert = crossing(model, input, metric, current, open);
    if (alert) alerts.push(alert);
  }
  // A threshold removed from the endpoint cannot recover any more: forget it.
  for (const m of open) if (m !== DOWN && thresholds[m] === undefined) open.delete(m);
  return { alerts, open: [...open].sort() };
}
