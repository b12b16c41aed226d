import type { PageArtifact, TextFileArtifact, WellKnownArtifact } from '../artifacts.ts';
import { fetchTextFile, isOk } from './fetch-text.ts';
import { partValue, refsOf } from './page-refs.ts';
import type { GatherContext } from './types.ts';

// Files that tell agents and security researchers how to use a site. Each is fetched from the
// site's origin; security.txt falls back to the legacy /security.txt (RFC 9116 section 3), and
// the OpenAPI description to a link the page advertises (RFC 8631 service-desc).

const SMALL = { maxBytes: 256 * 1024 };

export async function gatherWellKnown(
  ctx: GatherContext,
  base: URL,
  page: PageArtifact | null,
): Promise<WellKnownArtifact> {
  const at = (path: string) => new URL(path, base).href;
  const [mcp, agent, aiPlugin, securityTxt, openapi] = await Promise.all([
    fetchTextFile(ctx, at('/.well-known/mcp.json'), SMALL),
    fetchTextFile(ctx, at('/.well-known/agent.json'), SMALL),
    fetchTextFile(ctx, at('/.well-known/ai-plugin.json'), SMALL),
    firstOk(ctx, [at('/.well-known/security.txt'), at('/security.txt')]),
    // The page's links are read from its HTML (page-refs.ts): /openapi.json waits for them.
    (page ? refsOf(ctx, page).then((r) => partValue(r.openApi)) : Promise.resolve([])).then((links) =>
      firstOk(ctx, [at('/openapi.json'), ...links], { maxBytes: 2 * 1024 * 1024 }),
    ),
  ]);
  return { mcp, agent, aiPlugin, securityTxt, openapi };
}

/** The first candidate that answers 2xx, else the first candidate's result. */
async function firstOk(ctx: GatherContext, urls: string[], opts = SMALL): Promise<TextFileArtifact> {
  const [first, ...rest] = [...new Set(urls)];
  const primary = await fetchTextFile(ctx, first!, opts);
  if (isOk(primary.status)) return primary;
  for (const url of rest) {
    const next = await fetchTextFile(ctx, url, opts);
    if (isOk(next.status)) return next;
  }
  return primary;
}
