import * as cheerio from 'cheerio';

// Sitemaps (sitemaps.org protocol): an XML <urlset> of <url><loc>, a <sitemapindex> of
// <sitemap><loc>, or a plain-text file of one URL per line. RSS and Atom feeds, which search
// engines also accept as sitemaps, are read as URL sets.

export interface SitemapEntry {
  loc: string;
  lastmod?: string;
}

export interface ParsedSitemap {
  kind: 'urlset' | 'sitemapindex' | 'invalid';
  urls: SitemapEntry[];
  sitemaps: string[];
  errors: string[];
}

// sitemaps.org limits one file to 50,000 URLs; past that we stop collecting and say so.
export const MAX_SITEMAP_URLS = 50_000;
// W3C Datetime: a date, optionally with a time and a time zone.
const W3C_DATETIME = /^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/;
const MAX_ERRORS = 25;

/**
 * What the sitemap gatherer keeps of one file: its kind, its first `keep` distinct URLs and `keep`
 * lastmods, its URL count, its child sitemaps and first five errors. Small to hand from the
 * scoring thread, where a worker parses sitemaps (up to 10 MB of XML) off its event loop. The
 * first `keep` distinct URLs of each file are enough for the first `keep` of several files.
 */
export interface SitemapDigest {
  kind: ParsedSitemap['kind'];
  locs: string[];
  lastmods: string[];
  urlCount: number;
  children: string[];
  errors: string[];
}

export function sitemapDigest(xml: string, keep: number): SitemapDigest {
  const parsed = parseSitemap(xml);
  const locs = new Set<string>();
  const lastmods: string[] = [];
  for (const u of parsed.urls) {
    if (locs.size < keep) locs.add(u.loc);
    if (u.lastmod && lastmods.length < keep) lastmods.push(u.lastmod);
    if (locs.size >= keep && lastmods.length >= keep) break;
  }
  return {
    kind: parsed.kind,
    locs: [...locs],
    lastmods,
    urlCount: parsed.urls.length,
    children: parsed.sitemaps,
    errors: parsed.errors.slice(0, 5),
  };
}

export function parseSitemap(xml: string): ParsedSitemap {
  const text = xml.replace(/^\uFEFF/, '').trim();
  if (text === '') return invalid('The sitemap is empty');
  if (!text.startsWith('<')) return parsePlainText(text);
  if (/^<!doctype html|^<html[\s>]/i.test(text)) return invalid('The sitemap is an HTML page, not XML');

  const $ = cheerio.load(text, { xml: true });
  const root = $.root().children().first();
  const rootName = localName(root.prop('tagName') ?? '');
  const errors: string[] = [];
  const addError = (e: string) => {
    if (errors.length < MAX_ERRORS) errors.push(e);
  };

  if (rootName === 'urlset' || rootName === 'rss' || rootName === 'feed') {
    const urls: SitemapEntry[] = [];
    const items =
      rootName === 'urlset'
        ? childrenNamed($, root, 'url')
        : $(root).find(rootName === 'rss' ? 'item' : 'entry');
    let extra = 0;
    items.each((i, el) => {
      const node = $(el);
      const loc =
        rootName === 'feed'
          ? (node.children('link').attr('href') ?? '').trim()
          : (childText($, node, rootName === 'rss' ? 'link' : 'loc') ?? '');
      if (!loc) {
        addError(`Entry ${i + 1} has no ${rootName === 'urlset' ? '<loc>' : 'link'}`);
        return;
      }
      if (!isAbsoluteHttpUrl(loc)) {
        addError(`Entry ${i + 1}: "${loc.slice(0, 200)}" is not an absolute http(s) URL`);
        return;
      }
      if (urls.length >= MAX_SITEMAP_URLS) {
        extra++;
        return;
      }
      const lastmod = childText(
        $,
        node,
        rootName === 'urlset' ? 'lastmod' : rootName === 'rss' ? 'pubDate' : 'updated',
      );
      if (lastmod && rootName === 'urlset' && !W3C_DATETIME.test(lastmod)) {
        addError(`Entry ${i + 1}: lastmod "${lastmod.slice(0, 40)}" is not a W3C datetime`);
      }
      urls.push(lastmod ? { loc, lastmod } : { loc });
    });
    if (extra > 0) addError(`More than ${MAX_SITEMAP_URLS} URLs: ${extra} were not read`);
    if (items.length === 0) addError('The sitemap lists no URLs');
    return { kind: 'urlset', urls, sitemaps: [], errors };
  }

  if (rootName === 'sitemapindex') {
    const sitemaps: string[] = [];
    childrenNamed($, root, 'sitemap').each((i, el) => {
      const loc = childText($, $(el), 'loc');
      if (!loc) addError(`Sitemap ${i + 1} has no <loc>`);
      else if (!isAbsoluteHttpUrl(loc))
        addError(`Sitemap ${i + 1}: "${loc.slice(0, 200)}" is not an absolute http(s) URL`);
      else sitemaps.push(loc);
    });
    if (sitemaps.length === 0 && errors.length === 0) addError('The sitemap index lists no sitemaps');
    return { kind: 'sitemapindex', urls: [], sitemaps, errors };
  }

  return invalid(rootName ? `Unexpected root element <${rootName}>` : 'Not an XML sitemap');
}

function parsePlainText(text: string): ParsedSitemap {
  const urls: SitemapEntry[] = [];
  const errors: string[] = [];
  let extra = 0;
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (line === '') continue;
    if (!isAbsoluteHttpUrl(line)) {
      if (errors.length < MAX_ERRORS) errors.push(`Line ${i + 1} is not an absolute http(s) URL`);
      continue;
    }
    if (urls.length < MAX_SITEMAP_URLS) urls.push({ loc: line });
    else extra++;
  }
  if (extra > 0) errors.push(`More than ${MAX_SITEMAP_URLS} URLs: ${extra} were not read`);
  // A text file with no URL at all is not a sitemap (e.g. an error page served as text/plain).
  if (urls.length === 0)
    return { kind: 'invalid', urls: [], sitemaps: [], errors: ['No URLs found', ...errors] };
  return { kind: 'urlset', urls, sitemaps: [], errors };
}

const invalid = (error: string): ParsedSitemap => ({
  kind: 'invalid',
  urls: [],
  sitemaps: [],
  errors: [error],
});

/** Tag name without a namespace prefix, lower-cased ("ns:urlset" -> "urlset"). */
const localName = (tag: string) => tag.toLowerCase().replace(/^.*:/, '');

function childrenNamed($: cheerio.CheerioAPI, parent: ReturnType<cheerio.CheerioAPI>, name: string) {
  return $(parent)
    .children()
    .filter((_, el) => localName((el as { tagName?: string }).tagName ?? '') === name.toLowerCase());
}

function childText(
  $: cheerio.CheerioAPI,
  parent: ReturnType<cheerio.CheerioAPI>,
  name: string,
): string | undefined {
  const t = childrenNamed($, parent, name).first().text().trim();
  return t === '' ? undefined : t;
}

function isAbsoluteHttpUrl(s: string): boolean {
  if (!/^https?:\/\//i.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}
