import type { ScanMode } from '../db/tables/scans.ts';
import { isGatherError } from '../scan-engine/artifacts.ts';

// A scan is partial when an artifact its mode should produce is absent or is a GatherError (the
// gatherer threw, timed out, or the browser was stopped over its memory budget). Partial scans
// are stored as `done` (their scores are real but computed from less evidence), listed as such in
// `missing_artifacts`, answered with `partial: true` + `missingArtifacts`, and never served from
// the scan cache.

export const QUICK_ARTIFACTS = [
  'Page',
  'Resources',
  'RobotsTxt',
  'Sitemap',
  'LlmsTxt',
  'WellKnown',
  'AgentFetches',
] as const;
export const FULL_ARTIFACTS = [...QUICK_ARTIFACTS, 'Rendered', 'Lighthouse'] as const;

/** Why each missing artifact is missing: its gather error's message, or that it was not gathered. */
export function partialReasons(
  mode: ScanMode,
  artifacts: Record<string, unknown> | null,
): Record<string, string> {
  const reasons: Record<string, string> = {};
  for (const name of missingArtifacts(mode, artifacts)) {
    const a = artifacts?.[name];
    reasons[name] = isGatherError(a) ? a.error.message : 'not gathered';
  }
  return reasons;
}

/** Names of the artifacts this scan should have and does not, in a stable order. */
export function missingArtifacts(mode: ScanMode, artifacts: Record<string, unknown> | null): string[] {
  const expected = mode === 'full' ? FULL_ARTIFACTS : QUICK_ARTIFACTS;
  return expected.filter((name) => {
    const a = artifacts?.[name];
    return a === undefined || a === null || isGatherError(a);
  });
}
