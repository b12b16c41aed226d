import type { CheerioAPI } from 'cheerio';
import { type JsonLdNode, structuredData } from '../scan-engine/checks/seo/lib/structured-data.ts';
import { perDocument } from '../scan-engine/computed/document.ts';

// Who wrote a page and when: answer engines weigh attributed, dated sources above anonymous
// undated ones. Read from meta tags, microdata, common byline markup and JSON-LD.

export interface Authorship {
  author: string | null;
  published: string | null;
  modified: string | null;
}

const first = (...values: (string | null | undefined)[]) =>
  values.map((v) => v?.replace(/\s+/g, ' ').trim()).find((v): v is string => !!v) ?? null;

function nameOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return nameOf(value[0]);
  if (typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string') {
    return (value as { name: string }).name;
  }
  return null;
}

const stringProp = (nodes: JsonLdNode[], key: string) =>
  nodes.map((n) => n[key]).find((v): v is string => typeof v === 'string') ?? null;

/** Computed once per document. */
export const authorship = ($: CheerioAPI): Authorship => perDocument($, readAuthorship);

function readAuthorship($: CheerioAPI): Authorship {
  const nodes = structuredData($).nodes;
  const ldAuthor = nodes.map((n) => nameOf(n.author)).find((v) => v) ?? null;
  const meta = (sel: string) => $(sel).first().attr('content');
  return {
    author: first(
      meta('meta[name="author" i]'),
      meta('meta[property="article:author" i]'),
      ldAuthor,
      $('[itemprop="author"]').first().text(),
      $('[rel~="author"]').first().text(),
      $('.author, .byline, [class*="author-name"]').first().text(),
    ),
    published: first(
      meta('meta[property="article:published_time" i]'),
      stringProp(nodes, 'datePublished'),
      $('[itemprop="datePublished"]').first().attr('content') ??
        $('[itemprop="datePublished"]').first().attr('datetime'),
      meta('meta[name="date" i]'),
      $('time[datetime]').first().attr('datetime'),
    ),
    modified: first(
      meta('meta[property="article:modified_time" i]'),
      stringProp(nodes, 'dateModified'),
      $('[itemprop="dateModified"]').first().attr('content') ??
        $('[itemprop="dateModified"]').first().attr('datetime'),
      meta('meta[name="last-modified" i]'),
    ),
  };
}
