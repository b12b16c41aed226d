// The page a request counts for (agent events, page and path rollups, AI referrals): its path
// without the query string, so `?utm_source=…`, session ids and cache busters do not split a page
// into thousands, except the query parameters that select a feed, which name a different
// resource: `/?feed=rss2` (WordPress), `/?flav=rss20` (Blosxom), `/blog?format=rss` (Squarespace),
// `/?format=feed&type=atom` (Joomla), `/feeds/posts/default?alt=rss` (Blogger), `?output=atom`
// stay apart from `/` and from each other. Kept parameters are written lower-cased, in a fixed
// order, whatever order the request had them in.

const MAX_KEY = 2048;

/** Parameters whose value names a feed format (any value for WordPress' and Blosxom's own). */
const ANY_VALUE = new Set(['feed', 'flav']);
const FEED_VALUE = new Set(['format', 'alt', 'output']);
const FEED_FORMATS =
  /^(rss|rss0?9[12]|rss1|rss2|rss20|rdf|atom|atom10|json|jsonfeed|json-feed|feed|xml|comments-rss2|comments-atom)$/;
/** Joomla's `type` (rss, atom) counts only beside `format=feed`. */
const JOOMLA_TYPE = /^(rss|atom)$/;

const MAYBE_FEED = /(?:^|[?&;])(?:feed|flav|format|alt|output)=/i;

/** The path of a request path-and-query, plus any feed-selecting parameters (see above). */
export function pageKey(p: string): string {
  const q = p.indexOf('?');
  if (q < 0) return p.length > MAX_KEY ? p.slice(0, MAX_KEY) : p || '/';
  const path = p.slice(0, q) || '/';
  const query = p.slice(q + 1);
  const feed = MAYBE_FEED.test(query) ? feedParams(query) : '';
  const key = feed ? `${path}?${feed}` : path;
  return key.length > MAX_KEY ? key.slice(0, MAX_KEY) : key;
}

function feedParams(query: string): string {
  const kept = new Map<string, string>();
  let type: string | undefined;
  for (const part of query.split(/[&;]/)) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = decode(part.slice(0, eq)).toLowerCase();
    const value = decode(part.slice(eq + 1)).toLowerCase();
    if (!value || value.length > 40) continue;
    if (ANY_VALUE.has(name) || (FEED_VALUE.has(name) && FEED_FORMATS.test(value))) kept.set(name, value);
    else if (name === 'type' && JOOMLA_TYPE.test(value)) type = value;
  }
  if (type && kept.get('format') === 'feed') kept.set('type', type);
  return [...kept]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
