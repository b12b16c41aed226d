import type { PageArtifact, TextFileArtifact, WellKnownArtifact } from '../artifacts.ts';
import { loadDocument } from '../computed/document.ts';
import { fetchTextFile, isOk } from './fetch-text.ts';
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
    firstOk(ctx, [at('/openapi.json'), ...openApiLinks(page)], { maxBytes: 2 * 1024 * 1024 }),
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

/** OpenAPI descriptions the page points at: Link header or <link rel=service-desc>, then plain links to openapi/swagger files. */
export function openApiLinks(page: PageArtifact | null): string[] {
  if (!page?.html && !page?.headers.link) return [];
  const found: string[] = [];
  const add = (href: string | undefined, base: string) => {
    if (!href) return;
    try {
      const url = new URL(href, base);
      if (url.protocol === 'http:' || url.protocol === 'https:') found.push(url.href);
    } catch {
      // not a URL
    }
  };
  for (const m of (page.headers.link ?? '').matchAll(/<([^>]+)>\s*;[^,]*rel="?[^",]*\bservice-desc\b/gi))
    add(m[1], page.finalUrl);
  if (page.html) {
    const $ = loadDocument(page.html);
    const base = new URL($('base[href]').attr('href') ?? '', page.finalUrl).href;
    $('link[rel~="service-desc"][href]').each((_, el) => add($(el).attr('href'), base));
    $('a[href]').each((_, el) => {
      const href = $(el).attr('href') ?? '';
      if (/(openapi|swagger)[\w.-]*\.(json|ya?ml)([?#]|$)/i.test(href)) add(href, base);
    });
  }
  return found.slice(0, 3);
}
