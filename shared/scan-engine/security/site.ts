// Same-site comparisons without a public-suffix list: the registrable domain is the last two
// labels, or three under a two-letter country code with a generic second level (example.co.uk).
// Hosts that are IP addresses or single labels stand for themselves.
const GENERIC_SECOND_LEVEL = new Set([
  'ac',
  'co',
  'com',
  'edu',
  'gov',
  'net',
  'org',
  'ne',
  'or',
  'go',
  'gob',
  'mil',
  'nic',
  'sch',
]);

export function registrableDomain(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (/^[\d.]+$/.test(host) || host.includes(':') || !host.includes('.')) return host;
  const labels = host.split('.');
  const tld = labels[labels.length - 1] as string;
  const second = labels[labels.length - 2] as string;
  const take = labels.length >= 3 && tld.length === 2 && GENERIC_SECOND_LEVEL.has(second) ? 3 : 2;
  return labels.slice(-take).join('.');
}

export function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}
