import { pageAdvertisedKey } from '../../geo-scoring/indexnow.ts';
import type { PageArtifact, ResourceEntry } from '../artifacts.ts';
import { loadDocument } from '../computed/document.ts';

// What the quick gatherers read from the page's HTML: the subresources to fetch, the OpenAPI
// descriptions it points at, an IndexNow key it advertises. Reading them parses the page, tens of
// milliseconds for a long one: a scan in a worker process asks the scoring thread
// (score-thread.ts), which parses the page once for these and again finds it parsed when it
// scores, and the worker's event loop parses nothing. One-shot scans and audits read them here.

export interface ResourceRef {
  url: string;
  type: ResourceEntry['type'];
  renderBlocking: boolean;
}

/** One part of the refs, or the message of what reading it threw (that gatherer fails, not the others). */
export type RefPart<T> = { value: T } | { error: string };

export interface PageRefs {
  /** Deduplicated, in fetch-priority then document order. */
  resources: RefPart<ResourceRef[]>;
  /** <link rel=service-desc> (and Link header), then plain links to openapi/swagger files; at most 3. */
  openApi: RefPart<string[]>;
  /** An IndexNow key the page advertises (<meta name=indexnow-key>, <link rel=indexnow>). */
  indexnow: RefPart<{ key: string; location: string | null } | null>;
}

/** A part's value, or what reading it threw, thrown again in the gatherer that needs it. */
export function partValue<T>(part: RefPart<T>): T {
  if ('error' in part) throw new Error(part.error);
  return part.value;
}

const read = <T>(fn: () => T): RefPart<T> => {
  try {
    return { value: fn() };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
};

// Fetch order when the cap bites: what blocks rendering first.
const PRIORITY: ResourceEntry['type'][] = ['stylesheet', 'script', 'font', 'image', 'other'];
const PRELOAD_TYPES: Record<string, ResourceEntry['type']> = {
  style: 'stylesheet',
  script: 'script',
  font: 'font',
  image: 'image',
};

/** Everything the gatherers read from the page (pure: the same page gives the same refs). */
export function pageRefs(page: PageArtifact): PageRefs {
  return {
    resources: read(() => referencedResources(page)),
    openApi: read(() => openApiLinks(page)),
    indexnow: read(() =>
      /html/i.test(page.contentType ?? 'text/html') ? pageAdvertisedKey(loadDocument(page.html)) : null,
    ),
  };
}

const memo = new WeakMap<PageArtifact, Promise<PageRefs>>();

/** The page's refs, read once per page however many gatherers ask: where ctx says, else here. */
export function refsOf(
  ctx: { cpuThread?: { pageRefs(page: PageArtifact): Promise<PageRefs> } },
  page: PageArtifact,
): Promise<PageRefs> {
  let refs = memo.get(page);
  if (!refs) {
    refs = ctx.cpuThread ? ctx.cpuThread.pageRefs(page) : new Promise((resolve) => resolve(pageRefs(page)));
    memo.set(page, refs);
  }
  return refs;
}

function referencedResources(page: PageArtifact): ResourceRef[] {
  if (!page.html) return [];
  const $ = loadDocument(page.html);
  let base = page.finalUrl;
  try {
    base = new URL($('base[href]').first().attr('href') ?? '', page.finalUrl).href;
  } catch {
    // a broken <base> is ignored, as browsers do
  }
  const refs = new Map<string, ResourceRef>();
  const add = (href: string | undefined, type: ResourceRef['type'], renderBlocking: boolean) => {
    if (!href) return;
    let url: URL;
    try {
      url = new URL(href.trim(), base);
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return; // data:, blob:, javascript:
    url.hash = '';
    const existing = refs.get(url.href);
    if (existing) existing.renderBlocking ||= renderBlocking;
    else refs.set(url.href, { url: url.href, type, renderBlocking });
  };

  $('link[href]').each((_, el) => {
    const link = $(el);
    const rel = ` ${(link.attr('rel') ?? '').toLowerCase()} `;
    const href = link.attr('href');
    if (rel.includes(' stylesheet ') && !rel.includes(' alternate ')) {
      const media = (link.attr('media') ?? 'all').trim().toLowerCase();
      add(href, 'stylesheet', media !== 'print' && link.attr('disabled') === undefined);
    } else if (rel.includes(' preload ')) {
      add(href, PRELOAD_TYPES[(link.attr('as') ?? '').toLowerCase()] ?? 'other', false);
    } else if (rel.includes(' modulepreload ')) {
      add(href, 'script', false);
    }
  });
  $('script[src]').each((_, el) => {
    const script = $(el);
    const type = (script.attr('type') ?? '').trim().toLowerCase();
    if (type && type !== 'module' && !/javascript|ecmascript/.test(type)) return; // data blocks, templates
    const deferred =
      script.attr('async') !== undefined || script.attr('defer') !== undefined || type === 'module';
    add(script.attr('src'), 'script', !deferred && script.closest('head').length > 0);
  });
  $('img[src]').each((_, el) => add($(el).attr('src'), 'image', false));

  return [...refs.values()].sort((a, b) => PRIORITY.indexOf(a.type) - PRIORITY.indexOf(b.type));
}

function openApiLinks(page: PageArtifact): string[] {
  if (!page.html && !page.headers.link) return [];
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
