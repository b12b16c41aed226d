import type { ArtifactSet } from '../scan-engine/artifacts.ts';
import { gradeFor } from '../scan-engine/model.ts';
import { GEO_MAX_SCORE, GEO_SIGNALS, geoModel } from './models/geo.ts';
import { fixFor, runModel, shortfalls } from './score-model.ts';

// The GEO check (interface.md "GEO check"): six signals with points, 85 in total.

export type SignalStatus = 'pass' | 'warn' | 'fail';

export interface GeoSignalResult {
  id: string;
  name: string;
  status: SignalStatus;
  score: number;
  maxScore: number;
  detail: string;
  fix?: string;
}

export interface GeoCheck {
  url: string;
  overallScore: number;
  maxScore: number;
  grade: string;
  summary: string;
  signals: GeoSignalResult[];
}

export function scoreGeo(artifacts: ArtifactSet, url: string): GeoCheck {
  const { score } = runModel(geoModel, artifacts);
  const signals = GEO_SIGNALS.map((signal, i): GeoSignalResult => {
    const dim = score.dimensions[i];
    if (!dim || dim.id !== signal.id) throw new Error(`GEO model out of step at signal ${signal.id}`);
    const ratio = (dim.score ?? 0) / 100;
    const points = Math.round(ratio * signal.maxScore);
    const applied = dim.checks.filter((r) => r.outcome !== 'not_applicable');
    let status: SignalStatus;
    if (dim.checks.length === 1) {
      const only = dim.checks[0]?.outcome;
      status = only === 'pass' || only === 'warn' ? only : 'fail';
    } else {
      status = dim.score === null ? 'fail' : ratio >= 0.9 ? 'pass' : ratio >= 0.5 ? 'warn' : 'fail';
    }
    const missed = shortfalls(geoModel, dim);
    const shown = status === 'pass' ? applied : missed.length > 0 ? missed : applied;
    const detail =
      shown.length > 0
        ? shown
            .slice(0, 3)
            .map((r) => r.message)
            .join('; ')
        : (dim.checks[0]?.message ?? 'Not assessed');
    const result: GeoSignalResult = {
      id: signal.id,
      name: signal.name,
      status,
      score: points,
      maxScore: signal.maxScore,
      detail,
    };
    if (status !== 'pass') {
      const first = missed[0] ?? dim.checks[0];
      result.fix = first ? fixFor(first) : `Improve ${signal.name}`;
    }
    return result;
  });
  const overallScore = signals.reduce((s, x) => s + x.score, 0);
  const grade = gradeFor(geoModel, Math.round((100 * overallScore) / GEO_MAX_SCORE));
  return {
    url,
    overallScore,
    maxScore: GEO_MAX_SCORE,
    grade,
    summary: summarise(signals, overallScore, grade),
    signals,
  };
}

function summarise(signals: GeoSignalResult[], total: number, grade: string): string {
  const passing = signals.filter((s) => s.status === 'pass').length;
  const head = `GEO score ${total}/${GEO_MAX_SCORE} (grade ${grade}): ${passing} of ${signals.length} signals pass.`;
  const worst = signals
    .filter((s) => s.status !== 'pass')
    .sort((a, b) => b.maxScore - b.score - (a.maxScore - a.score))[0];
  if (!worst) return head;
  return `${head} Biggest gain: ${worst.name} (${worst.maxScore - worst.score} points) - ${worst.fix ?? worst.detail}`;
}
