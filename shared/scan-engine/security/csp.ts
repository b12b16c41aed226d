import type { PageArtifact } from '../artifacts.ts';
import { metaPolicies } from './http-equiv.ts';

// Content-Security-Policy parsing and Observatory's classification of the effective policy.
// Several policies (repeated headers, which arrive joined by commas, and meta tags) are all
// enforced, so the effective source list of a directive is what every policy allows.

export type SourceList = Set<string>;
export type Directives = Map<string, SourceList>;

export class CspParseError extends Error {}

export interface ParsedPolicy {
  directives: Directives;
  /** report-uri or report-to given more than once (tolerated, but worth saying). */
  duplicateReporting: boolean;
}

// Observatory rejects anything shorter than its shortest useful policy ("img-src" less one).
const SHORTEST_POLICY = 6;
const DUPLICATES_TOLERATED = new Set(['report-uri', 'report-to']);
// Not honoured in a meta tag (HTML spec): only a header can set these.
const HEADER_ONLY = ['frame-ancestors', 'report-uri', 'sandbox'];
const SOURCE_LIST_DIRECTIVES = new Set(['base-uri', 'form-action', 'frame-ancestors', 'navigate-to']);
const FALLS_BACK_TO_DEFAULT = new Set([
  'child-src',
  'connect-src',
  'font-src',
  'frame-src',
  'img-src',
  'manifest-src',
  'media-src',
  'object-src',
  'prefetch-src',
  'script-src',
  'script-src-attr',
  'script-src-elem',
  'style-src',
  'style-src-attr',
  'style-src-elem',
  'worker-src',
]);

const DANGEROUSLY_BROAD = new Set([
  'ftp:',
  'http:',
  'https:',
  '*',
  'http://*',
  'http://*.*',
  'https://*',
  'https://*.*',
]);
const UNSAFE_INLINE = new Set(["'unsafe-inline'", 'data:']);
const BROAD_OR_INLINE = new Set([...DANGEROUSLY_BROAD, ...UNSAFE_INLINE]);
const PASSIVE_DIRECTIVES = ['img-src', 'media-src'];
const NONCE_OR_HASH = ["'sha256-", "'sha384-", "'sha512-", "'nonce-"];
// '*' never covers these schemes (CSP3 "matches a source expression").
const NOT_COVERED_BY_STAR = ['data:', 'blob:', 'filesystem:', 'mediastream:'];

/** One header value (or meta content) may hold several comma-separated policies. */
export function splitPolicies(values: string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((p) => p.replace(/[\r\n]/g, '').trim());
}

export function parsePolicy(policy: string): ParsedPolicy {
  if (policy.length < SHORTEST_POLICY) throw new CspParseError(`policy too short: "${policy}"`);
  const directives: Directives = new Map();
  let duplicateReporting = false;
  for (const segment of policy.split(';')) {
    const [rawName, ...values] = segment.trim().split(/\s+/).filter(Boolean);
    if (!rawName) continue;
    const name = rawName.toLowerCase();
    if (directives.has(name)) {
      // Browsers use the first and ignore the rest; Observatory calls it invalid so people notice.
      if (!DUPLICATES_TOLERATED.has(name)) throw new CspParseError(`directive ${name} repeated`);
      duplicateReporting = true;
      continue;
    }
    const sources = values.map((v) => v.toLowerCase());
    // An empty source list means 'none'.
    if (sources.length === 0 && (name.endsWith('-src') || SOURCE_LIST_DIRECTIVES.has(name)))
      sources.push("'none'");
    directives.set(name, new Set(sources));
  }
  return { directives, duplicateReporting };
}

/** What each policy lets a directive load; null where a policy does not restrict it. */
function listFor(policy: Directives, directive: string): SourceList | null {
  return (
    policy.get(directive) ??
    (FALLS_BACK_TO_DEFAULT.has(directive) ? policy.get('default-src') : undefined) ??
    null
  );
}

function covers(list: SourceList, source: string): boolean {
  if (list.has(source)) return true;
  if (source.startsWith("'")) return false; // keywords, nonces and hashes only match themselves
  if (list.has('*') && !NOT_COVERED_BY_STAR.some((s) => source.startsWith(s))) return true;
  for (const allowed of list) {
    if (allowed.startsWith("'")) continue;
    if (allowed.endsWith(':') && (source === allowed || source.startsWith(`${allowed}//`))) return true;
    if (
      source.startsWith(allowed) &&
      (allowed.endsWith('/') || ['/', undefined].includes(source[allowed.length]))
    ) {
      return true;
    }
  }
  return false;
}

/** The intersection of several policies, directive by directive. */
export function effectivePolicy(policies: Directives[]): Directives {
  if (policies.length === 1)
    return new Map([...(policies[0] as Directives)].map(([d, s]) => [d, new Set(s)]));
  const names = new Set(policies.flatMap((p) => [...p.keys()]));
  const out: Directives = new Map();
  for (const name of names) {
    const lists = policies.map((p) => listFor(p, name)).filter((l): l is SourceList => l !== null);
    const candidates = new Set(lists.flatMap((l) => [...l]));
    const kept = new Set([...candidates].filter((s) => lists.every((l) => covers(l, s))));
    if (kept.size > 1) kept.delete("'none'");
    out.set(name, kept.size > 0 ? kept : new Set(["'none'"]));
  }
  return out;
}

export interface CspFlags {
  unsafeInline: boolean;
  unsafeEval: boolean;
  insecureSchemeActive: boolean;
  insecureSchemePassive: boolean;
  unsafeInlineStyle: boolean;
  strictDynamic: boolean;
  defaultNone: boolean;
  antiClickjacking: boolean;
  insecureBaseUri: boolean;
  insecureFormAction: boolean;
  unsafeObjects: boolean;
}

export interface CspAnalysis {
  result: string;
  http: boolean; // a policy came from a header
  meta: boolean; // a policy came from a meta tag
  policies: number;
  directives: Record<string, string[]> | null;
  flags: CspFlags | null;
}

/** Policies from the Content-Security-Policy header alone (frame-ancestors only works there). */
export function headerPolicies(headers: Record<string, string>): ParsedPolicy[] | null {
  const value = headers['content-security-policy'];
  if (value === undefined) return [];
  try {
    return splitPolicies([value]).map(parsePolicy);
  } catch {
    return null;
  }
}

/**
 * Whether any enforced policy (header or meta tag) asks browsers to upgrade http:// subresources
 * to https://. Browsers apply the directive even where Observatory would call the policy invalid.
 */
export function upgradesInsecureRequests(page: Pick<PageArtifact, 'headers' | 'html'>): boolean {
  const header = page.headers['content-security-policy'];
  const policies = splitPolicies([...(header === undefined ? [] : [header]), ...metaPolicies(page.html).csp]);
  return policies.some((p) =>
    p.split(';').some((d) => d.trim().toLowerCase().split(/\s+/)[0] === 'upgrade-insecure-requests'),
  );
}

export function analyzeCsp(page: Pick<PageArtifact, 'headers' | 'html' | 'finalUrl'>): CspAnalysis {
  const noPolicy = (result: string): CspAnalysis => ({
    result,
    http: false,
    meta: false,
    policies: 0,
    directives: null,
    flags: null,
  });
  const httpTexts =
    page.headers['content-security-policy'] === undefined
      ? []
      : splitPolicies([page.headers['content-security-policy']]);
  const metaTexts = splitPolicies(metaPolicies(page.html).csp);
  let http: ParsedPolicy[];
  let meta: ParsedPolicy[];
  try {
    http = httpTexts.map(parsePolicy);
    meta = metaTexts.map(parsePolicy);
  } catch {
    return {
      ...noPolicy('csp-header-invalid'),
      http: httpTexts.length > 0,
      meta: metaTexts.length > 0,
    };
  }
  for (const p of meta) for (const d of HEADER_ONLY) p.directives.delete(d);
  const enforced = [...http, ...meta].filter((p) => p.directives.size > 0);
  if (enforced.length === 0) {
    return noPolicy(
      page.headers['content-security-policy-report-only']
        ? 'csp-not-implemented-but-reporting-enabled'
        : 'csp-not-implemented',
    );
  }

  const csp = effectivePolicy(enforced.map((p) => p.directives));
  const httpOnly = effectivePolicy(http.filter((p) => p.directives.size > 0).map((p) => p.directives));
  const star = () => new Set(['*']);
  const copy = (s: SourceList | undefined) => (s ? new Set(s) : undefined);
  const scriptSrc = copy(csp.get('script-src') ?? csp.get('default-src')) ?? star();
  const styleSrc = copy(csp.get('style-src') ?? csp.get('default-src')) ?? star();
  const objectSrc = copy(csp.get('object-src') ?? csp.get('default-src')) ?? star();
  const baseUri = csp.get('base-uri') ?? star();
  const formAction = csp.get('form-action') ?? star();
  const frameAncestors = httpOnly.get('frame-ancestors') ?? star();
  const isHttps = page.finalUrl.startsWith('https:');

  const hasNonceOrHash = (list: SourceList) =>
    [...list].some((s) => NONCE_OR_HASH.some((p) => s.startsWith(p)));
  // With a nonce or hash present, browsers ignore 'unsafe-inline'.
  for (const list of [scriptSrc, styleSrc]) if (hasNonceOrHash(list)) list.delete("'unsafe-inline'");

  // Checks run from worst to best; the first that applies is the result.
  const found: string[] = [];
  const setOnce = (r: string) => found.push(r);
  const flags: CspFlags = {
    unsafeInline: false,
    unsafeEval: false,
    insecureSchemeActive: false,
    insecureSchemePassive: false,
    unsafeInlineStyle: false,
    strictDynamic: false,
    defaultNone: false,
    antiClickjacking: false,
    insecureBaseUri: false,
    insecureFormAction: false,
    unsafeObjects: false,
  };

  // 'strict-dynamic' trusts only nonce/hash-approved scripts: host, scheme, 'self' and
  // 'unsafe-inline' sources are then ignored. Without a nonce or hash it blocks every script.
  if (scriptSrc.has("'strict-dynamic'")) {
    if (hasNonceOrHash(scriptSrc)) {
      for (const s of [...scriptSrc]) {
        if (
          [...DANGEROUSLY_BROAD].some((b) => s.startsWith(b)) ||
          s === "'self'" ||
          s === "'unsafe-inline'"
        ) {
          scriptSrc.delete(s);
        }
      }
      flags.strictDynamic = true;
    } else {
      setOnce('csp-header-invalid');
    }
  }

  const activeSources = [
    ...[...csp]
      .filter(([d]) => !PASSIVE_DIRECTIVES.includes(d) && d !== 'script-src')
      .flatMap(([, list]) => [...list]),
    ...scriptSrc,
  ];
  const passiveSources = PASSIVE_DIRECTIVES.flatMap((d) => [...(csp.get(d) ?? csp.get('default-src') ?? [])]);
  const insecure = (s: string) => s.startsWith('http:') || s.startsWith('ftp:');

  if (
    [...scriptSrc].some((s) => BROAD_OR_INLINE.has(s)) ||
    [...objectSrc].some((s) => DANGEROUSLY_BROAD.has(s))
  ) {
    setOnce('csp-implemented-with-unsafe-inline');
    flags.unsafeInline = true;
  }
  if (isHttps && activeSources.some(insecure)) {
    setOnce('csp-implemented-with-insecure-scheme');
    flags.insecureSchemeActive = true;
  }
  if (scriptSrc.has("'unsafe-eval'") || styleSrc.has("'unsafe-eval'")) {
    setOnce('csp-implemented-with-unsafe-eval');
    flags.unsafeEval = true;
  }
  if (isHttps && passiveSources.some(insecure)) {
    setOnce('csp-implemented-with-insecure-scheme-in-passive-content-only');
    flags.insecureSchemePassive = true;
  }
  if ([...styleSrc].some((s) => BROAD_OR_INLINE.has(s))) {
    setOnce('csp-implemented-with-unsafe-inline-in-style-src-only');
    flags.unsafeInlineStyle = true;
  }
  const defaultSrc = csp.get('default-src');
  if (defaultSrc?.size === 1 && defaultSrc.has("'none'")) {
    setOnce('csp-implemented-with-no-unsafe-default-src-none');
    flags.defaultNone = true;
  } else {
    setOnce('csp-implemented-with-no-unsafe');
  }
  flags.antiClickjacking = [...frameAncestors].every((s) => !DANGEROUSLY_BROAD.has(s));
  flags.insecureBaseUri = [...baseUri].some((s) => BROAD_OR_INLINE.has(s));
  flags.insecureFormAction = [...formAction].some((s) => DANGEROUSLY_BROAD.has(s));
  flags.unsafeObjects = [...objectSrc].some((s) => DANGEROUSLY_BROAD.has(s));

  let final = found[0] as string;
  const pass = [
    'csp-implemented-with-no-unsafe',
    'csp-implemented-with-no-unsafe-default-src-none',
    'csp-implemented-with-unsafe-inline-in-style-src-only',
    'csp-implemented-with-insecure-scheme-in-passive-content-only',
  ].includes(final);
  if (pass && enforced.some((p) => p.duplicateReporting)) final = 'csp-implemented-but-duplicate-directives';

  const directives = Object.fromEntries(
    [...csp].sort(([a], [b]) => a.localeCompare(b)).map(([d, s]) => [d, [...s].sort()]),
  );
  return {
    result: final,
    http: http.length > 0,
    meta: meta.length > 0,
    policies: http.length + meta.length,
    directives,
    flags,
  };
}
