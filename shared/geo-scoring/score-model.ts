import type { ArtifactSet } from '../scan-engine/artifacts.ts';
import type { Check, CheckResult } from '../scan-engine/check.ts';
import { checksById } from '../scan-engine/checks/index.ts';
import {
  type CheckRun,
  type DimensionScore,
  type ModelScore,
  runChecks,
  scoreModel,
} from '../scan-engine/engine.ts';
import type { ScoringModel } from '../scan-engine/model.ts';

// Runs just the checks one model references and scores it: the on-demand GEO, citability and
// llms.txt results do not need the whole registry.

export interface ModelRun {
  score: ModelScore;
  runs: Map<string, CheckRun>;
}

export function modelChecks(model: ScoringModel): Check[] {
  const ids = new Set(model.dimensions.flatMap((d) => d.checks.map((c) => c.id)));
  return [...ids].map((id) => {
    const check = checksById.get(id);
    if (!check) throw new Error(`model ${model.id} references unknown check ${id}`);
    return check;
  });
}

export function runModel(model: ScoringModel, artifacts: ArtifactSet): ModelRun {
  const runs = runChecks(modelChecks(model), artifacts);
  return { score: scoreModel(model, runs), runs };
}

/** The fix for a non-passing run: the check's specific advice, else its general description. */
export function fixFor(run: CheckRun): string {
  const fix = (run as CheckResult).evidence?.fix;
  return typeof fix === 'string' && fix !== ''
    ? fix
    : (checksById.get(run.id)?.meta.description ?? run.message);
}

/** Non-passing runs of a dimension, the ones costing most first. */
export function shortfalls(model: ScoringModel, dim: DimensionScore): CheckRun[] {
  const weights = new Map(model.dimensions.find((d) => d.id === dim.id)?.checks.map((c) => [c.id, c.weight]));
  return dim.checks
    .filter((r) => r.outcome === 'warn' || r.outcome === 'fail' || r.outcome === 'error')
    .sort((a, b) => (weights.get(b.id) ?? 0) * (1 - b.score) - (weights.get(a.id) ?? 0) * (1 - a.score));
}
