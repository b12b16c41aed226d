import type { ArtifactSet } from './artifacts.ts';
import { allChecks } from './checks/index.ts';
import { pageVerdict } from './computed/page-kind.ts';
import { type ModelScore, runChecks, scoreModel } from './engine.ts';
import { models } from './models/index.ts';
import { SCAN_MODELS } from './scan-models.ts';

// Scoring is pure: artifacts in, every model's score out. Each check runs once per scan however
// many models use it. Stored artifacts can be rescored with this function after a model changes.

export { SCAN_MODELS } from './scan-models.ts';

export function scoreArtifacts(
  artifacts: ArtifactSet,
  modelIds: readonly string[] = SCAN_MODELS,
): Record<string, ModelScore> {
  const runs = runChecks(allChecks, artifacts);
  const verdict = pageVerdict(artifacts);
  const out: Record<string, ModelScore> = {};
  for (const id of modelIds) {
    const model = models[id];
    if (!model) throw new Error(`unknown scoring model ${id}`);
    out[id] = scoreModel(model, runs, verdict);
  }
  return out;
}
