import type { CheerioAPI } from 'cheerio';

// Where an IndexNow key can be found from outside. The protocol (indexnow.org) puts the key file
// at /{key}.txt, or at a `keyLocation` the site names in each submission; either way the file's
// body is the key. Nothing in the protocol advertises the key, so a scanner only learns it when
// the site says so in robots.txt ("# IndexNow-Key: …", "IndexNow: https://…/{key}.txt"), in the
// page (<meta name="indexnow-key">, <link rel="indexnow">), or when its owner declares it
// (a monitored site's `indexnow_key`). Keys are 8-128 of [A-Za-z0-9-].

export const INDEXNOW_KEY = /^[A-Za-z0-9-]{8,128}$/;
const ROBOTS_LINE = /^[#\s]*index[-_ ]?now(?:[-_ ]?key)?\s*[:=]\s*(\S+)/im;
const KEY_FILE = /\/([A-Za-z0-9-]{8,128})\.txt$/;

export interface AdvertisedKey {
  key: string;
  /** The key file URL when the advertisement named one, else null (/{key}.txt is implied). */
  location: string | null;
  source: 'robots.txt' | 'page';
}

function parse(value: string | undefined | null): { key: string; location: string | null } | null {
  if (!value) return null;
  const v = value.trim();
  const file = KEY_FILE.exec(v);
  if (file) return { key: file[1]!, location: v };
  return INDEXNOW_KEY.test(v) ? { key: v, location: null } : null;
}

export function advertisedKey(robotsBody: string | null, $: CheerioAPI | null): AdvertisedKey | null {
  return robotsAdvertisedKey(robotsBody) ?? ($ ? withSource(pageAdvertisedKey($), 'page') : null);
}

/** A key advertised in robots.txt ("# IndexNow-Key: …", "IndexNow: https://…/{key}.txt"). */
export function robotsAdvertisedKey(robotsBody: string | null): AdvertisedKey | null {
  return withSource(robotsBody ? parse(ROBOTS_LINE.exec(robotsBody)?.[1]) : null, 'robots.txt');
}

/** A key the page advertises (<meta name="indexnow-key">, <link rel="indexnow">), without its source. */
export function pageAdvertisedKey($: CheerioAPI): { key: string; location: string | null } | null {
  return (
    parse($('meta[name="indexnow-key" i]').attr('content')) ??
    parse($('link[rel~="indexnow" i]').attr('href'))
  );
}

export const withSource = (
  k: { key: string; location: string | null } | null,
  source: AdvertisedKey['source'],
): AdvertisedKey | null => (k ? { ...k, source } : null);
