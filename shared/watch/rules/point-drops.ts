import type { ScoringModel } from '../../scan-engine/model.ts';
import {
  type AlertDraft,
  DOWN,
  draft,
  metricName,
  OVERALL,
  type WatchCurrent,
  type WatchScores,
} from '../alerts.ts';

// The point-drop rule set (A monitoring, own sites): alerts decided from the scan, the scans
// before it and the site's open incident. Pure, so every rule is a table test.
//
// - score_drop: the overall score fell by more than alertThreshold since the last comparable scan
//   that could fetch the page.
// - dimension_drop: one per scored dimension that fell by more than alertThreshold (dimensions in
//   `skip` never do: the competitor standing moves when competitors change, not the site).
// - site_down: the page could not be fetched, on the first scan that finds it so (not again
//   while it stays down).
// - recovered: a score_drop or site_down opened an incident, and a scan finds the site up and
//   its overall score back within alertThreshold of the score before the incident.

export interface PointDropRules {
  /** The scoring model whose dimensions are compared (and named in messages). */
  model: Pick<ScoringModel, 'dimensions'>;
  /** Dimensions that never raise dimension_drop. */
  skip?: readonly string[];
}

export interface PointDropInput {
  site: { label: string; alertThreshold: number; incidentBaseline: number | null };
  /** The scan right before this one (any status), or null on a site's first scan. */
  previous: { status: 'ok' | 'down'; overall: number } | null;
  /** The latest comparable scan before this one that fetched the page. */
  lastOk: WatchScores | null;
  /** Whether lastOk was scored by the model version scoring now (drops compare only then). */
  comparable?: boolean;
  current: WatchCurrent;
}

export interface PointDropDecision {
  alerts: AlertDraft[];
  /** The site's incident baseline after this scan: null when no incident is open. */
  incidentBaseline: number | null;
}

function drops(rules: PointDropRules, input: PointDropInput, now: WatchScores): AlertDraft[] {
  const { site, lastOk } = input;
  const threshold = site.alertThreshold;
  if (!lastOk || input.comparable === false) return [];
  const alerts: AlertDraft[] = [];
  const fell = lastOk.overall - now.overall;
  if (fell > threshold) {
    alerts.push(
      draft(
        OVERALL,
        'score_drop',
        lastOk.overall,
        now.overall,
        `${site.label}: overall score fell from ${lastOk.overall} to ${now.overall} (${-fell}), more than the alert threshold of ${threshold} points`,
      ),
    );
  }
  for (const { id } of rules.model.dimensions) {
    if (rules.skip?.includes(id)) continue;
    const was = lastOk.dimensions[id];
    const is = now.dimensions[id];
    if (was === undefined || is === undefined || was - is <= threshold) continue;
    alerts.push(
      draft(
        id,
        'dimension_drop',
        was,
        is,
        `${site.label}: ${metricName(rules.model, id)} fell from ${was} to ${is} (${is - was})`,
      ),
    );
  }
  return alerts;
}

export function decidePointDrops(rules: PointDropRules, input: PointDropInput): PointDropDecision {
  const { site, previous, lastOk, current } = input;
  if (current.status === 'down') {
    const before = lastOk?.overall ?? 0;
    const alerts =
      previous?.status !== 'down'
        ? [draft(DOWN, 'site_down', before, 0, `${site.label} could not be fetched: ${current.reason}`)]
        : [];
    return { alerts, incidentBaseline: site.incidentBaseline ?? before };
  }

  const alerts = drops(rules, input, current);
  let baseline = site.incidentBaseline;
  const dropped = alerts.some((a) => a.type === 'score_drop');
  if (dropped) baseline ??= lastOk!.overall;
  const open = site.incidentBaseline;
  if (open !== null && !dropped && current.overall >= open - site.alertThreshold) {
    const before = previous?.overall ?? 0;
    const how =
      previous?.status === 'down'
        ? `is reachable again with an overall score of ${current.overall}`
        : `recovered: overall score is back to ${current.overall} (from ${before})`;
    const metric = previous?.status === 'down' ? DOWN : OVERALL;
    alerts.push(
      draft(
        metric,
        'recovered',
        before,
        current.overall,
        `${site.label} ${how}; it was ${open} before the incident`,
      ),
    );
    baseline = null;
  }
  return { alerts, incidentBaseline: baseline };
}
