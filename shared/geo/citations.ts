import { parse } from 'tldts';

// What "cited" means (docs/geo.md). A URL cites a site when both have the same registrable
// domain (eTLD+1 from the Public Suffix List, private suffixes such as github.io included), so
// www.example.co.uk and shop.example.co.uk cite example.co.uk while other.co.uk and co.uk do not.
// A host that is an IP address or has no public suffix (localhost, an intranet name) matches by
// exact host, port included. Never by substring.

export interface SiteIdentity {
  /** The registrable domain, or null when the site matches by exact host. */
  domain: string | null;
  /** host[:port], lower-case, for exact matching. */
  host: string;
}

function hostOf(input: string): { hostname: string; host: string } | null {
  try {
    const u = new URL(input.includes('://') ? input : `https://${input}`);
    const hostname = u.hostname.toLowerCase().replace(/\.$/, '');
    if (!hostname) return null;
    return { hostname, host: u.port ? `${hostname}:${u.port}` : hostname };
  } catch {
    return null;
  }
}

export function siteIdentity(url: string): SiteIdentity | null {
  const h = hostOf(url);
  if (!h) return null;
  const p = parse(h.hostname, { allowPrivateDomains: true });
  if (p.isIp || !p.domain || !p.publicSuffix || p.isIcann === null) return { domain: null, host: h.host };
  return { domain: p.domain, host: h.host };
}

/** Whether `cited` (a URL an answer cites) belongs to the site. */
export function citesSite(site: SiteIdentity, cited: string): boolean {
  const other = siteIdentity(cited);
  if (!other) return false;
  if (site.domain === null || other.domain === null) return site.host === other.host;
  return site.domain === other.domain;
}

/** 1-based position of the first citation of the site, or null. */
export function firstCitation(
  site: SiteIdentity,
  citations: { url: string; position: number }[],
): number | null {
  for (const c of citations) if (citesSite(site, c.url)) return c.position;
  return null;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether the answer names the site: its registrable domain (or host) or its label, as whole
 * words, case-insensitive.
 */
export function mentionsSite(site: SiteIdentity, label: string | null, text: string): boolean {
  const names = new Set<string>();
  names.add(site.domain ?? site.host.replace(/:\d+$/, ''));
  const l = label?.trim();
  if (l && l.length >= 3) names.add(l);
  return [...names].some((n) =>
    new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRe(n)}($|[^\\p{L}\\p{N}])`, 'iu').test(text),
  );
}
