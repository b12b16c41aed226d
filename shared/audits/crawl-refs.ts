import { createHash } from 'node:crypto';
import type { PageArtifact } from '../scan-engine/artifacts.ts';
import { loadDocument } from '../scan-engine/computed/document.ts';

// What the audit crawl reads in each page it keeps: the same-origin links it follows, and what
// identifies the page (its body and its canonical URL) so that one page under two URLs is audited
// once. Parsing is CPU work: a worker does it in its scoring thread (CpuThread.crawlRefs), where a
// large page does not hold up the event loop.

// Links to files that are not pages are never fetched as pages.
const NOT_A_PAGE =
  /\.(pdf|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|zip|gz|tgz|bz2|rar|7z|mp[34]|m4a|mov|avi|webm|ogg|wav|woff2?|ttf|otf|eot|css|js|mjs|json|xml|txt|csv|exe|dmg|iso|apk|docx?|xlsx?|pptx?|odt)$/i;

export interface CrawlRefs {
  /** Same-origin links, absolute, without fragments (pageLinks). */
  links: string[];
  /** The page's identities (pageIdentities). */
  identities: string[];
}

export type CrawledDocument = Pick<PageArtifact, 'html' | 'finalUrl'>;

export function crawlRefs(page: CrawledDocument, origin: string): CrawlRefs {
  return { links: pageLinks(page, origin), identities: pageIdentities(page, origin) };
}

/** Same-origin links of a page, absolute, without fragments; files that are not pages left out. */
export function pageLinks(page: CrawledDocument, origin: string): string[] {
  const $ = loadDocument(page.html);
  let base: URL;
  try {
    base = new URL($('base[href]').first().attr('href') ?? page.finalUrl, page.finalUrl);
  } catch {
    base = new URL(page.finalUrl);
  }
  const out = new Set<string>();
  $('a[href], area[href]').each((_, el) => {
    const href = $(el).attr('href')?.trim();
    if (!href || href.startsWith('#')) return;
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    if (url.origin !== origin || NOT_A_PAGE.test(url.pathname)) return;
    out.add(crawlKey(url.href));
  });
  return [...out];
}

/**
 * What makes two URLs one page: its same-origin canonical URL (rel=canonical), and its body's
 * hash (a server answering `/` and `/index.html` with the same document). Final URLs are
 * compared separately.
 */
export function pageIdentities(page: CrawledDocument, origin: string): string[] {
  const out = [`body:${createHash('sha256').update(page.html).digest('hex')}`];
  const href = loadDocument(page.html)('link[rel~="canonical" i]').first().attr('href')?.trim();
  if (href) {
    try {
      const canonical = new URL(href, page.finalUrl);
      if (canonical.origin === origin) out.push(`canonical:${crawlKey(canonical.href)}`);
    } catch {}
  }
  return out;
}

/** The URL as the crawl identifies it: fragment dropped, everything else kept. */
export function crawlKey(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}
