import type { ArtifactSet } from './artifacts.ts';
import type { Check } from './check.ts';
import { allChecks } from './checks/index.ts';
import { pageVerdict } from './computed/page-kind.ts';
import { type ModelScore, runChecks, scoreModel } from './engine.ts';
import type { ScoringModel } from './model.ts';
import { models } from './models/index.ts';
import { SCAN_MODELS } from './scan-models.ts';

// Scoring is pure: artifacts in, every model's score out. Each check runs once per scan however
// many models use it, and only the checks the asked-for models use run: a scan's two models use
// 97 of the 118 checks (the GEO, citability, llms.txt and local/social checks score on demand).
// Stored artifacts can be rescored with this function after a model changes.

export { SCAN_MODELS } from './scan-models.ts';

export function scoreArtifacts(
  artifacts: ArtifactSet,
  modelIds: readonly string[] = SCAN_MODELS,
): Record<string, ModelScore> {
  const asked = modelIds.map((id) => {
    const model = models[id];
    if (!model) throw new Error(`unknown scoring model ${id}`);
    return model;
  });
  const runs = runChecks(checksOf(modelIds, asked), artifacts);
  const verdict = pageVerdict(artifacts);
  const out: Record<string, ModelScore> = {};
  asked.forEach((model, i) => {
    out[modelIds[i]!] = scoreModel(model, runs, verdict);
  });
  return out;
}

/** The checks the models reference, in registry order (a check a model names but the registry lacks fails in scoreModel). */
function checksOf(modelIds: readonly string[], asked: readonly ScoringModel[]): readonly Check[] {
  const key = modelIds.join(',');
  let checks = checksByModels.get(key);
  if (!checks) {
    const ids = new Set(asked.flatMap((m) => m.dimensions.flatMap((d) => d.checks.map((c) => c.id))));
    checks = [...allChecks].filter((c) => ids.has(c.meta.id));
    checksByModels.set(key, checks);
  }
  return checks;
}
const checksByModels = new Map<string, readonly Check[]>();
