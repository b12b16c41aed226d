import type { Scan } from '../../shared/db/tables/scans.ts';
import { scoreCitability } from '../../shared/geo-scoring/citability.ts';
import { scoreLlmsTxt } from '../../shared/geo-scoring/llms-txt-score.ts';
import type { ArtifactSet, LlmsTxtArtifact } from '../../shared/scan-engine/artifacts.ts';
import { isGatherError } from '../../shared/scan-engine/artifacts.ts';
import type { ModelScore } from '../../shared/scan-engine/engine.ts';

// Scan rows -> the JSON shapes of interface.md (A: seven dimensions; B: five weighted + research).

export const SITE_AUDIT = 'site-audit';
export const AGENT_READABILITY = 'agent-readability';

export function modelResult(scan: Scan, modelId: string): ModelScore {
  const r = scan.results?.[modelId] as ModelScore | undefined;
  if (!r) throw new Error(`scan ${scan.id} has no ${modelId} result`);
  return r;
}

/** `partial: true`, the missing artifacts and why, when the scan lacks evidence it should have. */
export function completeness(scan: Scan): {
  partial: boolean;
  missingArtifacts?: string[];
  partialReasons?: Record<string, string>;
} {
  const missing = scan.missing_artifacts ?? [];
  if (!missing.length) return { partial: false };
  const reasons = scan.partial_reasons ?? {};
  return {
    partial: true,
    missingArtifacts: missing,
    ...(Object.keys(reasons).length ? { partialReasons: reasons } : {}),
  };
}

const scannedAt = (scan: Scan) => (scan.finished_at ?? scan.created_at).toISOString();

export function presentScanA(scan: Scan) {
  const r = modelResult(scan, SITE_AUDIT);
  return {
    url: scan.url,
    domain: scan.domain,
    scannedAt: scannedAt(scan),
    overallScore: r.overallScore,
    grade: r.grade,
    dimensions: r.dimensions.map((d) => ({
      id: d.id,
      name: d.name,
      // A dimension no check could assess reports 0 and says so, rather than a made-up score.
      score: d.score ?? 0,
      issues:
        d.score === null && !d.notComputed
          ? [`${d.name} could not be assessed on this page`, ...d.issues]
          : d.issues,
      passes: d.passes,
    })),
    scanId: scan.id,
    mode: scan.mode,
    model: { id: r.modelId, version: r.modelVersion },
    ...completeness(scan),
  };
}

export function presentScanB(
  scan: Scan,
  opts: { agentCorrelation?: number | null; withFindings?: boolean } = {},
) {
  const r = modelResult(scan, AGENT_READABILITY);
  return {
    url: scan.url,
    domain: scan.domain,
    scannedAt: scannedAt(scan),
    methodologyVersion: r.modelVersion,
    overallScore: r.overallScore,
    grade: r.grade,
    dimensions: r.dimensions.map((d) => ({ id: d.id, weight: d.weight, score: d.score ?? 0 })),
    researchSignals: [{ id: 'agent_correlation', weight: 0, score: opts.agentCorrelation ?? null }],
    ...(opts.withFindings
      ? { issues: r.dimensions.flatMap((d) => d.issues), passes: r.dimensions.flatMap((d) => d.passes) }
      : {}),
    scanId: scan.id,
    mode: scan.mode,
    ...completeness(scan),
  };
}

/** The free llms.txt tool, scored from the scan's stored LlmsTxt artifact. */
export function presentLlmsTxt(scan: Scan) {
  const artifact = (scan.artifacts as ArtifactSet | null)?.LlmsTxt;
  const origin = new URL(scan.url).origin;
  if (!artifact || isGatherError(artifact)) {
    const empty: LlmsTxtArtifact = {
      url: `${origin}/llms.txt`,
      status: null,
      contentType: null,
      body: '',
      parsed: null,
      fullUrl: null,
    };
    return scoreLlmsTxt(empty);
  }
  return scoreLlmsTxt(artifact);
}

/** The free citability tool, scored from the scan's stored artifacts. */
export function presentCitability(scan: Scan) {
  return scoreCitability((scan.artifacts ?? {}) as ArtifactSet, scan.url);
}
