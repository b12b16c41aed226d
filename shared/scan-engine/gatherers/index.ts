import { AppError } from '../../errors.ts';
import { NetError } from '../../net/net-error.ts';
import { type ArtifactSet, type GatherError, isGatherError, type PageArtifact } from '../artifacts.ts';
import { gatherAgentFetches } from './agent-fetches.ts';
import { gatherIndexNow } from './indexnow.ts';
import { gatherLlmsTxt } from './llms-txt.ts';
import { gatherPage } from './page.ts';
import { gatherResources } from './resources.ts';
import { gatherRobotsTxt } from './robots-txt.ts';
import { gatherSitemap } from './sitemap.ts';
import type { GatherContext } from './types.ts';
import { gatherWellKnown } from './well-known.ts';

// Quick mode: plain HTTP, no browser. Page first (the others read its final URL and HTML); if it
// fails the others still run against the requested origin. Then everything else at once, each
// under its own deadline; a gatherer that throws or overruns becomes a GatherError in the set,
// never a failed scan.

const PAGE_TIMEOUT_MS = 15_000;
const TIMEOUT_MS = 12_000;
const RESOURCES_TIMEOUT_MS = 15_000;

export async function gatherQuick(
  ctx: GatherContext,
  onPhase?: (phase: string) => void,
): Promise<ArtifactSet> {
  const run = <T>(name: string, timeoutMs: number, fn: (c: GatherContext) => Promise<T>) => {
    onPhase?.(name);
    return guarded(ctx, name, timeoutMs, fn);
  };

  const page = await run('Page', PAGE_TIMEOUT_MS, gatherPage);
  const okPage: PageArtifact | null = isGatherError(page) ? null : page;
  const base = okPage ? new URL(okPage.finalUrl) : ctx.url;

  const robots = run('RobotsTxt', TIMEOUT_MS, (c) => gatherRobotsTxt(c, base));
  const [Resources, RobotsTxt, Sitemap, LlmsTxt, WellKnown, AgentFetches, IndexNow] = await Promise.all([
    okPage
      ? run('Resources', RESOURCES_TIMEOUT_MS, (c) => gatherResources(c, okPage))
      : Promise.resolve(gatherError('No page to read resources from', 'page_unavailable')),
    robots,
    robots.then((r) =>
      run('Sitemap', TIMEOUT_MS, (c) => gatherSitemap(c, base, isGatherError(r) ? null : r)),
    ),
    run('LlmsTxt', TIMEOUT_MS, (c) => gatherLlmsTxt(c, base)),
    run('WellKnown', TIMEOUT_MS, (c) => gatherWellKnown(c, base, okPage)),
    run('AgentFetches', TIMEOUT_MS, (c) => gatherAgentFetches(c, ctx.url)),
    robots.then((r) =>
      run('IndexNow', TIMEOUT_MS, (c) => gatherIndexNow(c, base, okPage, isGatherError(r) ? null : r)),
    ),
  ]);
  return { Page: page, Resources, RobotsTxt, Sitemap, LlmsTxt, WellKnown, AgentFetches, IndexNow };
}

/**
 * Runs one gatherer with its own deadline (and the scan's). Resolves even if the gatherer ignores
 * its signal; errors become GatherErrors.
 */
async function guarded<T>(
  ctx: GatherContext,
  name: string,
  timeoutMs: number,
  fn: (c: GatherContext) => Promise<T>,
): Promise<T | GatherError> {
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new NetError('timeout', `${name} did not finish in time`));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([fn({ ...ctx, signal }), aborted]);
  } catch (err) {
    ctx.log?.(`${name} failed: ${(err as Error).message}`);
    return toGatherError(err);
  } finally {
    signal.removeEventListener('abort', onAbort);
    aborted.catch(() => {}); // settled or abandoned: never an unhandled rejection
  }
}

function toGatherError(err: unknown): GatherError {
  if (err instanceof AppError || err instanceof NetError) return gatherError(err.message, err.code);
  return gatherError(err instanceof Error ? err.message : String(err), 'gather_failed');
}

const gatherError = (message: string, code: string): GatherError => ({ error: { message, code } });
