import type { ScanMode } from '../db/tables/scans.ts';
import { gathererFailures, scanDuration } from '../metrics.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { SIGHTLINE_USER_AGENT } from '../net/user-agent.ts';
import type { ArtifactSet } from '../scan/artifacts.ts';
import type { BrowserProvider } from '../scan/browser.ts';
import type { ModelScore } from '../scan/engine.ts';
import { gatherQuick } from '../scan/gatherers/index.ts';
import { gatherLighthouse } from '../scan/gatherers/lighthouse.ts';
import { gatherRendered } from '../scan/gatherers/rendered.ts';
import { SCAN_MODELS, scoreArtifacts } from '../scan/score.ts';

// One scan: gather (quick artifacts; in full mode also the browser render beside a Lighthouse
// run), then score every model. Used by the scan_url task and by `sightline scan` alike.

export interface ScanDeps {
  policy: UrlPolicy;
  /** Full mode only: created lazily by the caller, shared across scans of a process. */
  browser?: BrowserProvider;
  signal: AbortSignal;
  onPhase?: (phase: string) => void;
  log?: (msg: string) => void;
  /** A monitored site's declared IndexNow key, verified by the IndexNow gatherer. */
  indexnow?: { key: string; keyLocation?: string | null };
  /** Models to score (every check still runs once); default: the scan models (site-audit, agent-readability). */
  models?: readonly string[];
}

export interface ScanOutcome {
  artifacts: ArtifactSet;
  results: Record<string, ModelScore>;
}

const asGatherError = (err: unknown) => ({
  error: { message: (err as Error).message ?? String(err), code: (err as { code?: string }).code },
});

async function timed<T>(mode: ScanMode, phase: string, fn: () => Promise<T>): Promise<T> {
  const end = scanDuration.startTimer({ mode, phase });
  try {
    return await fn();
  } finally {
    end();
  }
}

export async function runScan(url: URL, mode: ScanMode, deps: ScanDeps): Promise<ScanOutcome> {
  const endTotal = scanDuration.startTimer({ mode, phase: 'total' });
  const onPhase = deps.onPhase ?? (() => {});
  const quick = timed(mode, 'quick', () =>
    gatherQuick(
      {
        url,
        policy: deps.policy,
        signal: deps.signal,
        userAgent: SIGHTLINE_USER_AGENT,
        log: deps.log,
        indexnow: deps.indexnow,
      },
      (p) => onPhase(`gather:${p}`),
    ),
  );
  let artifacts: ArtifactSet;
  if (mode === 'full') {
    if (!deps.browser) throw new Error('full mode needs a browser');
    const { pool, lighthouse } = deps.browser();
    const ctx = { url: url.toString(), signal: deps.signal };
    onPhase('gather:browser');
    // Lighthouse runs one at a time per process in its own child; the render runs beside it.
    const [q, rendered, lh] = await Promise.all([
      quick,
      timed(mode, 'rendered', () => gatherRendered(ctx, pool)).catch(asGatherError),
      timed(mode, 'lighthouse', () => gatherLighthouse(ctx, lighthouse)).catch(asGatherError),
    ]);
    artifacts = { ...q, Rendered: rendered, Lighthouse: lh };
  } else {
    artifacts = await quick;
  }
  for (const [name, value] of Object.entries(artifacts)) {
    if (value && typeof value === 'object' && 'error' in value && Object.keys(value).length === 1)
      gathererFailures.inc({ gatherer: name });
  }
  onPhase('score');
  const results = scoreArtifacts(artifacts, deps.models ?? SCAN_MODELS);
  endTotal();
  return { artifacts, results };
}
