import type { ScoringModel } from '../scan-engine/model.ts';

// What every scheduled watch alert is made of, whoever watches the site (A monitoring: own sites,
// B: registered sites): the scores a scan gives, the alert drafts a rule set decides, and the one
// monitoring.alert body (interface.md section 6) they are delivered as. The rule sets are the
// parameters of the watch: rules/point-drops.ts (A) and rules/thresholds.ts (B).

export type AlertType = 'score_drop' | 'dimension_drop' | 'site_down' | 'recovered';

/** The metric of the overall score and of reachability, beside the dimension ids. */
export const OVERALL = 'overall';
export const DOWN = 'down';

/** Scores of one scan that fetched the page; a dimension the model did not score is absent. */
export interface WatchScores {
  overall: number;
  dimensions: Record<string, number>;
}

export type WatchCurrent = ({ status: 'ok' } & WatchScores) | { status: 'down'; reason: string };

export interface AlertDraft {
  /** overall, down or a dimension id: what the alert is about. */
  metric: string;
  type: AlertType;
  /** Set only for dimension_drop (interface.md), otherwise null. */
  dimension: string | null;
  previousScore: number;
  currentScore: number;
  delta: number;
  message: string;
}

export function draft(
  metric: string,
  type: AlertType,
  previous: number,
  current: number,
  message: string,
): AlertDraft {
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

/** "overall score" or "<dimension name> score", named by the scoring model the watch uses. */
export function metricName(model: Pick<ScoringModel, 'dimensions'>, metric: string): string {
  if (metric === OVERALL) return 'overall score';
  return `${model.dimensions.find((d) => d.id === metric)?.name ?? metric} score`;
}

export const scoreOf = (s: WatchScores, metric: string): number | undefined =>
  metric === OVERALL ? s.overall : s.dimensions[metric];

/** What an operator's log says of one recorded slot: the site, how the scan went, what it raised. */
export function slotLogFields(
  site: { id: string; url: string },
  measured: { status: 'ok'; overall: number } | { status: 'down' },
  alerts: readonly Pick<AlertDraft, 'type'>[],
) {
  const overall = measured.status === 'ok' ? measured.overall : null;
  return {
    siteId: site.id,
    url: site.url,
    status: measured.status,
    overall,
    alerts: alerts.map((a) => a.type),
  };
}

/** The monitoring.alert body, exactly the fields of interface.md section 6. */
export function alertPayload(
  siteUrl: string,
  alert: Omit<AlertDraft, 'metric'> & { metric?: string },
  scannedAt: Date,
) {
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
