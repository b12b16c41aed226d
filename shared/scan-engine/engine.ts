import { type ArtifactMap, type ArtifactName, type ArtifactSet, isGatherError } from './artifacts.ts';
import type { Check, CheckResult } from './check.ts';
import { notComputedReason, type PageKind, type PageVerdict } from './computed/page-kind.ts';
import { gradeFor, type ScoringModel } from './model.ts';
import { modifierScore } from './security/score-table.ts';

// The runner owns the required-artifact gate and isolates a throwing check, so one broken check
// or one failed gatherer never throws a whole scan away.

export type CheckRun =
  | (CheckResult & { id: string; title: string })
  | { id: string; title: string; outcome: 'error'; score: 0; message: string };

export function runCheck(check: Check, artifacts: ArtifactSet): CheckRun {
  const { id, title } = check.meta;
  const available: Partial<ArtifactMap> = {};
  for (const name of check.meta.requiredArtifacts) {
    const a = artifacts[name];
    if (a === undefined) {
      return {
        id,
        title,
        outcome: 'not_applicable',
        score: 0,
        message: `${name} was not gathered in this mode`,
      };
    }
    if (isGatherError(a)) {
      return { id, title, outcome: 'error', score: 0, message: `${name} unavailable: ${a.error.message}` };
    }
    (available as Record<string, unknown>)[name] = a;
  }
  for (const name of check.meta.optionalArtifacts ?? []) {
    const a = artifacts[name];
    if (a !== undefined && !isGatherError(a)) (available as Record<string, unknown>)[name] = a;
  }
  try {
    const r = check.run(available as Pick<ArtifactMap, ArtifactName>);
    // The same properties in the same order as { ...r, score, id, title }, which is slower over
    // the hundred-odd result shapes of the checks.
    return Object.assign({}, r, { score: r.outcome === 'not_applicable' ? 0 : clamp01(r.score), id, title });
  } catch (err) {
    return { id, title, outcome: 'error', score: 0, message: `check failed: ${(err as Error).message}` };
  }
}

export function runChecks(checks: Iterable<Check>, artifacts: ArtifactSet): Map<string, CheckRun> {
  const out = new Map<string, CheckRun>();
  for (const c of checks) out.set(c.meta.id, runCheck(c, artifacts));
  return out;
}

export interface DimensionScore {
  id: string;
  name: string;
  weight: number;
  score: number | null; // null when no check applied
  issues: string[];
  passes: string[];
  checks: CheckRun[];
  /**
   * What the score rests on beyond the checks, when the method has more to say: the `modifiers`
   * method keeps the Observatory score and grade here (shared/scan-engine/security/score-table.ts).
   */
  evidence?: Record<string, unknown>;
  /** Set (with score null) when the dimension was not computed because the page is not content. */
  notComputed?: string;
}

export interface ModelScore {
  modelId: string;
  modelVersion: string;
  overallScore: number;
  grade: string;
  dimensions: DimensionScore[];
  /** Status of the scanned page's final response (absent in results stored before it was kept). */
  httpStatus?: number | null;
  /** content, error_status (4xx/5xx: overall 0, grade F) or directory_listing. */
  pageKind?: PageKind;
}

/**
 * Scores a model from check runs: weighted mean per dimension, weighted mean of dimensions.
 * With a verdict saying the page is an error page or a directory listing, the dimensions computed
 * from the page's content (all but `pageIndependent` ones) are not computed (score null,
 * `notComputed` says why); an error page's overall score is 0 (grade F): there is no page to grade.
 */
export function scoreModel(
  model: ScoringModel,
  runs: Map<string, CheckRun>,
  verdict?: PageVerdict,
): ModelScore {
  const skip = verdict ? notComputedReason(verdict) : null;
  const dimensions: DimensionScore[] = model.dimensions.map((dim) => {
    if (skip && !dim.pageIndependent) {
      const checks = dim.checks.map((ref) => runs.get(ref.id)).filter((r): r is CheckRun => r !== undefined);
      return {
        id: dim.id,
        name: dim.name,
        weight: dim.weight,
        score: null,
        issues: [`${dim.name} ${skip}`],
        passes: [],
        checks,
        notComputed: skip,
      };
    }
    let sum = 0;
    let weights = 0;
    let cap = 100;
    const issues: string[] = [];
    const passes: string[] = [];
    const checks: CheckRun[] = [];
    for (const ref of dim.checks) {
      const run = runs.get(ref.id);
      if (!run) throw new Error(`model ${model.id} references check ${ref.id}, which did not run`);
      checks.push(run);
      if (run.outcome === 'not_applicable' || run.outcome === 'error') continue;
      sum += ref.weight * run.score;
      weights += ref.weight;
      if (run.outcome === 'pass') passes.push(run.message);
      else issues.push(run.message);
      if (ref.gate && run.outcome === 'fail') cap = Math.min(cap, ref.gate.cap);
    }
    if (dim.method === 'modifiers') {
      // Observatory-style: modifiers looked up in the score table, not the weighted mean.
      // Nothing applied: no score, and no Observatory score to keep either.
      if (weights === 0)
        return { id: dim.id, name: dim.name, weight: dim.weight, score: null, issues, passes, checks };
      const m = modifierScore(checks);
      const evidence = { ...m.evidence } as unknown as Record<string, unknown>;
      const score = Math.min(cap, m.score);
      return { id: dim.id, name: dim.name, weight: dim.weight, score, issues, passes, checks, evidence };
    }
    const score = weights > 0 ? Math.min(cap, Math.round((100 * sum) / weights)) : null;
    return { id: dim.id, name: dim.name, weight: dim.weight, score, issues, passes, checks };
  });
  let total = 0;
  let totalWeight = 0;
  for (const d of dimensions) {
    if (d.score === null || d.weight === 0) continue;
    total += d.weight * d.score;
    totalWeight += d.weight;
  }
  const overallScore =
    verdict?.kind === 'error_status' ? 0 : totalWeight > 0 ? Math.round(total / totalWeight) : 0;
  return {
    modelId: model.id,
    modelVersion: model.version,
    overallScore,
    grade: gradeFor(model, overallScore),
    dimensions,
    ...(verdict ? { httpStatus: verdict.httpStatus, pageKind: verdict.kind } : {}),
  };
}

const clamp01 = (n: number) => (Number.isFinite(n) ? Math.max(0, Math.min(1, n)) : 0);
