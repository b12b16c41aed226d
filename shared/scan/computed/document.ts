import * as cheerio from 'cheerio';

// Parsing HTML is the costliest step of a check run; parse each distinct HTML string once per
// process (a small LRU), not once per check.
const cache = new Map<string, cheerio.CheerioAPI>();
const MAX = 8;

export function loadDocument(html: string): cheerio.CheerioAPI {
  const hit = cache.get(html);
  if (hit) {
    cache.delete(html);
    cache.set(html, hit);
    return hit;
  }
  const $ = cheerio.load(html);
  cache.set(html, $);
  if (cache.size > MAX) cache.delete(cache.keys().next().value as string);
  return $;
}
