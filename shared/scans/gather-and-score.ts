import type { Config } from '../config.ts';
import { toJsonb } from '../db/json.ts';
import type { ScanMode } from '../db/tables/scans.ts';
import { gathererFailures, scanDuration } from '../metrics.ts';
import { HostSlots, MAX_REQUESTS_PER_SITE } from '../net/host-slots.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { SIGHTLINE_USER_AGENT } from '../net/user-agent.ts';
import type { ArtifactSet } from '../scan-engine/artifacts.ts';
import type { BrowserProvider } from '../scan-engine/browser.ts';
import type { ModelScore } from '../scan-engine/engine.ts';
import { gatherQuick } from '../scan-engine/gatherers/index.ts';
import { gatherLighthouse } from '../scan-engine/gatherers/lighthouse.ts';
import { gatherRendered } from '../scan-engine/gatherers/rendered.ts';
import { SCAN_MODELS } from '../scan-engine/scan-models.ts';
import {
  scoreInThisThread,
  scoreInThread,
  scoreToStoreInThread,
  scoringThread,
  warmScoreThread,
} from '../scan-engine/score-thread.ts';
import { checkBrowserLoads } from './browser-loads.ts';
import { SCAN_PHASES, type ScanPhase } from './phases.ts';

// One scan: gather (quick artifacts; in full mode also the browser render beside a Lighthouse
// run), then score every model: in the scoring thread (score-thread.ts), off this event loop, for
// the scan_url task; in this thread for `sightline scan`, which scans once and exits.

export interface ScanDeps {
  policy: UrlPolicy;
  /** Full mode only: created lazily by the caller, shared across scans of a process. */
  browser?: BrowserProvider;
  signal: AbortSignal;
  /**
   * The scan's current phase, on every change: `fetch` (the plain HTTP gatherers), `render` (the
   * browser), `lighthouse`, joined with `+` while they run side by side, then `score`.
   */
  onPhase?: (phase: string) => void;
  /** A phase has ended, after `ms` milliseconds (for logs). */
  onPhaseDone?: (phase: string, ms: number) => void;
  log?: (msg: string) => void;
  /** A monitored site's declared IndexNow key, verified by the IndexNow gatherer. */
  indexnow?: { key: string; keyLocation?: string | null };
  /** Also write the set and its results as jsonb text (ScanOutcome.jsonb), in the scoring thread. */
  jsonb?: boolean;
  /** Models to score (every check still runs once); default: the scan models (site-audit, agent-readability). */
  models?: readonly string[];
  /**
   * Where the checks run: `thread` (default) keeps them off this event loop, for processes that
   * serve others meanwhile; `here` is for a one-shot scan (the CLI), where a thread would only
   * load every check a second time.
   */
  scoring?: 'thread' | 'here';
}

export interface ScanOutcome {
  artifacts: ArtifactSet;
  results: Record<string, ModelScore>;
  /** With ScanDeps.jsonb: the two as jsonb text, made where they were scored. */
  jsonb?: { artifacts: string; results: string };
}

const asGatherError = (err: unknown) => ({
  error: { message: (err as Error).message ?? String(err), code: (err as { code?: string }).code },
});

/** Which phases are running; reports the combined name whenever it changes. */
function phaseTracker(deps: ScanDeps) {
  const active = new Set<ScanPhase>();
  let last = '';
  const report = () => {
    const name = SCAN_PHASES.filter((p) => active.has(p)).join('+');
    if (name && name !== last) {
      last = name;
      deps.onPhase?.(name);
    }
  };
  return async <T>(mode: ScanMode, phase: ScanPhase, metric: string, fn: () => Promise<T>): Promise<T> => {
    const end = scanDuration.startTimer({ mode, phase: metric });
    const started = performance.now();
    active.add(phase);
    report();
    try {
      return await fn();
    } finally {
      end();
      active.delete(phase);
      deps.onPhaseDone?.(phase, Math.round(performance.now() - started));
      report();
    }
  };
}

/** How long a scan of this mode may gather before its gatherers are cut off (SCAN_*_DEADLINE_MS). */
export const scanDeadlineMs = (
  config: Pick<Config, 'SCAN_QUICK_DEADLINE_MS' | 'SCAN_FULL_DEADLINE_MS'>,
  mode: ScanMode,
): number => (mode === 'full' ? config.SCAN_FULL_DEADLINE_MS : config.SCAN_QUICK_DEADLINE_MS);

export async function runScan(url: URL, mode: ScanMode, deps: ScanDeps): Promise<ScanOutcome> {
  const endTotal = scanDuration.startTimer({ mode, phase: 'total' });
  const timed = phaseTracker(deps);
  const here = deps.scoring === 'here';
  if (!here) warmScoreThread(); // its modules load while the scan gathers
  const quick = timed(mode, 'fetch', 'quick', () =>
    gatherQuick(
      {
        url,
        policy: deps.policy,
        signal: deps.signal,
        userAgent: SIGHTLINE_USER_AGENT,
        log: deps.log,
        indexnow: deps.indexnow,
        slots: new HostSlots(MAX_REQUESTS_PER_SITE),
        cpuThread: here ? undefined : scoringThread, // the page is parsed where it is scored
      },
      (p) => deps.log?.(`gather ${p}`),
    ),
  );
  let artifacts: ArtifactSet;
  if (mode === 'full') {
    if (!deps.browser) throw new Error('full mode needs a browser');
    const { pool, lighthouse } = deps.browser();
    const ctx = { url: url.toString(), signal: deps.signal };
    // Lighthouse runs one at a time per process in its own child; the render runs beside it.
    const [q, rendered, lh] = await Promise.all([
      quick,
      timed(mode, 'render', 'rendered', () => gatherRendered(ctx, pool)).catch(asGatherError),
      timed(mode, 'lighthouse', 'lighthouse', () => gatherLighthouse(ctx, lighthouse)).catch(asGatherError),
    ]);
    artifacts = checkBrowserLoads({ ...q, Rendered: rendered, Lighthouse: lh });
  } else {
    artifacts = await quick;
  }
  for (const [name, value] of Object.entries(artifacts)) {
    if (value && typeof value === 'object' && 'error' in value && Object.keys(value).length === 1)
      gathererFailures.inc({ gatherer: name });
  }
  const models = deps.models ?? SCAN_MODELS;
  const scored = await timed(mode, 'score', 'score', () => score(artifacts, models, here, deps.jsonb));
  endTotal();
  return { artifacts, ...scored };
}

/** The set's scores, here or in the scoring thread, with its jsonb text when asked. */
async function score(
  artifacts: ArtifactSet,
  models: readonly string[],
  here: boolean,
  jsonb: boolean | undefined,
): Promise<Omit<ScanOutcome, 'artifacts'>> {
  if (jsonb && !here) {
    const { results, artifactsJsonb, resultsJsonb } = await scoreToStoreInThread(artifacts, models);
    return { results, jsonb: { artifacts: artifactsJsonb, results: resultsJsonb } };
  }
  const results = await (here ? scoreInThisThread : scoreInThread)(artifacts, models);
  return jsonb
    ? { results, jsonb: { artifacts: toJsonb(artifacts), results: toJsonb(results) } }
    : { results };
}
