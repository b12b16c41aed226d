import type { LighthouseArtifact } from '../artifacts.ts';
import type { LighthouseRunner, SlimLhr } from '../browser.ts';
import type { BrowserGatherContext } from './rendered.ts';

// The Lighthouse artifact: a Lighthouse run (in its own process, see worker/browser/lighthouse.ts)
// reduced to category scores and per-audit scores and values.

/** Category scores (0..1, null when Lighthouse could not score) and audits without details. */
export function reduceLighthouseReport(lhr: SlimLhr): LighthouseArtifact {
  const categories: Record<string, number | null> = {};
  for (const [id, c] of Object.entries(lhr.categories)) categories[id] = c.score ?? null;
  const audits: LighthouseArtifact['audits'] = {};
  for (const [id, a] of Object.entries(lhr.audits)) {
    audits[id] = {
      score: a.score ?? null,
      title: a.title,
      scoreDisplayMode: a.scoreDisplayMode,
      ...(typeof a.numericValue === 'number' ? { numericValue: a.numericValue } : {}),
      ...(typeof a.displayValue === 'string' ? { displayValue: a.displayValue } : {}),
    };
  }
  const artifact: LighthouseArtifact = { lighthouseVersion: lhr.lighthouseVersion, categories, audits };
  // A page Lighthouse could not load (error status, no FCP, ...) still yields a report, with an error.
  if (lhr.runtimeError) artifact.runtimeError = `${lhr.runtimeError.code}: ${lhr.runtimeError.message}`;
  return artifact;
}

export async function gatherLighthouse(
  ctx: BrowserGatherContext,
  runner: LighthouseRunner,
): Promise<LighthouseArtifact> {
  const lhr = await runner.run(ctx.url, { signal: ctx.signal, timeoutMs: ctx.timeoutMs });
  return reduceLighthouseReport(lhr);
}
