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

const noPolicy = (result: string): CspAnalysis => ({
  result,
  http: false,
  meta: false,
  policies: 0,
  directives: null,
  flags: null,
});

/** The page's policies by origin, or null when any of them does not parse. */
function readPolicies(page: Pick<PageArtifact, 'headers' | 'html'>): {
  httpTexts: string[];
  metaTexts: string[];
  parsed: { http: ParsedPolicy[]; meta: ParsedPolicy[] } | null;
} {
  const header = page.headers['content-security-policy'];
  const httpTexts = header === undefined ? [] : splitPolicies([header]);
  const metaTexts = splitPolicies(metaPolicies(page.html).csp);
  try {
    const http = httpTexts.map(parsePolicy);
    const meta = metaTexts.map(parsePolicy);
    for (const p of meta) for (const d of HEADER_ONLY) p.directives.delete(d);
    return { httpTexts, metaTexts, parsed: { http, meta } };
  } catch {
    return { httpTexts, metaTexts, parsed: null };
  }
}

/** The source lists Observatory judges; an absent directive allows everything ('*'). */
interface JudgedSources {
  scriptSrc: SourceList;
  styleSrc: SourceList;
  objectSrc: SourceList;
  baseUri: SourceList;
  formAction: SourceList;
  frameAncestors: SourceList;
}

const hasNonceOrHash = (list: SourceList) =>
  [...list].some((s) => NONCE_OR_HASH.some((p) => s.startsWith(p)));

/**
 * The lists to judge, from the effective policy of every enforced policy (frame-ancestors from
 * headers alone). Script and style lists are copies the caller may prune; with a nonce or hash
 * present, browsers ignore 'unsafe-inline', so it is removed from them here.
 */
function judgedSources(csp: Directives, httpOnly: Directives): JudgedSources {
  const star = () => new Set(['*']);
  const copy = (s: SourceList | undefined) => (s ? new Set(s) : undefined);
  const sources = {
    scriptSrc: copy(csp.get('script-src') ?? csp.get('default-src')) ?? star(),
    styleSrc: copy(csp.get('style-src') ?? csp.get('default-src')) ?? star(),
    objectSrc: copy(csp.get('object-src') ?? csp.get('default-src')) ?? star(),
    baseUri: csp.get('base-uri') ?? star(),
    formAction: csp.get('form-action') ?? star(),
    frameAncestors: httpOnly.get('frame-ancestors') ?? star(),
  };
  for (const list of [sources.scriptSrc, sources.styleSrc])
    if (hasNonceOrHash(list)) list.delete("'unsafe-inline'");
  return sources;
}

/**
 * 'strict-dynamic' trusts only nonce/hash-approved scripts: host, scheme, 'self' and
 * 'unsafe-inline' sources are then ignored, so they are removed from scriptSrc. Without a nonce
 * or hash it blocks every script, which Observatory calls invalid.
 */
function applyStrictDynamic(scriptSrc: SourceList): 'absent' | 'strict' | 'invalid' {
  if (!scriptSrc.has("'strict-dynamic'")) return 'absent';
  if (!hasNonceOrHash(scriptSrc)) return 'invalid';
  for (const s of [...scriptSrc]) {
    if ([...DANGEROUSLY_BROAD].some((b) => s.startsWith(b)) || s === "'self'" || s === "'unsafe-inline'")
      scriptSrc.delete(s);
  }
  return 'strict';
}

const noFlags = (): CspFlags => ({
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
});

/**
 * Observatory's checks, worst first: returns every result that applies (the first is the
 * verdict, and there is always one) and sets the matching flags.
 */
function classify(csp: Directives, src: JudgedSources, isHttps: boolean, flags: CspFlags): string[] {
  const found: string[] = [];
  const activeSources = [
    ...[...csp]
      .filter(([d]) => !PASSIVE_DIRECTIVES.includes(d) && d !== 'script-src')
      .flatMap(([, list]) => [...list]),
    ...src.scriptSrc,
  ];
  const passiveSources = PASSIVE_DIRECTIVES.flatMap((d) => [...(csp.get(d) ?? csp.get('default-src') ?? [])]);
  const insecure = (s: string) => s.startsWith('http:') || s.startsWith('ftp:');

  if (
    [...src.scriptSrc].some((s) => BROAD_OR_INLINE.has(s)) ||
    [...src.objectSrc].some((s) => DANGEROUSLY_BROAD.has(s))
  ) {
    found.push('csp-implemented-with-unsafe-inline');
    flags.unsafeInline = true;
  }
  if (isHttps && activeSources.some(insecure)) {
    found.push('csp-implemented-with-insecure-scheme');
    flags.insecureSchemeActive = true;
  }
  if (src.scriptSrc.has("'unsafe-eval'") || src.styleSrc.has("'unsafe-eval'")) {
    found.push('csp-implemented-with-unsafe-eval');
    flags.unsafeEval = true;
  }
  if (isHttps && passiveSources.some(insecure)) {
    found.push('csp-implemented-with-insecure-scheme-in-passive-content-only');
    flags.insecureSchemePassive = true;
  }
  if ([...src.styleSrc].some((s) => BROAD_OR_INLINE.has(s))) {
    found.push('csp-implemented-with-unsafe-inline-in-style-src-only');
    flags.unsafeInlineStyle = true;
  }
  const defaultSrc = csp.get('default-src');
  if (defaultSrc?.size === 1 && defaultSrc.has("'none'")) {
    found.push('csp-implemented-with-no-unsafe-default-src-none');
    flags.defaultNone = true;
  } else {
    found.push('csp-implemented-with-no-unsafe');
  }
  return found;
}

/** Flags that describe the policy without deciding its result. */
function setDescriptiveFlags(src: JudgedSources, flags: CspFlags): void {
  flags.antiClickjacking = [...src.frameAncestors].every((s) => !DANGEROUSLY_BROAD.has(s));
  flags.insecureBaseUri = [...src.baseUri].some((s) => BROAD_OR_INLINE.has(s));
  flags.insecureFormAction = [...src.formAction].some((s) => DANGEROUSLY_BROAD.has(s));
  flags.unsafeObjects = [...src.objectSrc].some((s) => DANGEROUSLY_BROAD.has(s));
}

// Passing results that a duplicated report-uri/report-to downgrades.
const PASSING = [
  'csp-implemented-with-no-unsafe',
  'csp-implemented-with-no-unsafe-default-src-none',
  'csp-implemented-with-unsafe-inline-in-style-src-only',
  'csp-implemented-with-insecure-scheme-in-passive-content-only',
];

export function analyzeCsp(page: Pick<PageArtifact, 'headers' | 'html' | 'finalUrl'>): CspAnalysis {
  const { httpTexts, metaTexts, parsed } = readPolicies(page);
  if (!parsed) {
    return {
      ...noPolicy('csp-header-invalid'),
      http: httpTexts.length > 0,
      meta: metaTexts.length > 0,
    };
  }
  const { http, meta } = parsed;
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
  const src = judgedSources(csp, httpOnly);
  const flags = noFlags();
  const strictDynamic = applyStrictDynamic(src.scriptSrc);
  flags.strictDynamic = strictDynamic === 'strict';
  const found = [
    ...(strictDynamic === 'invalid' ? ['csp-header-invalid'] : []),
    ...classify(csp, src, page.finalUrl.startsWith('https:'), flags),
  ];
  setDescriptiveFlags(src, flags);

  let result = found[0] as string;
  if (PASSING.includes(result) && enforced.some((p) => p.duplicateReporting))
    result = 'csp-implemented-but-duplicate-directives';
  const directives = Object.fromEntries(
    [...csp].sort(([a], [b]) => a.localeCompare(b)).map(([d, s]) => [d, [...s].sort()]),
  );
  return {
    result,
    http: http.length > 0,
    meta: meta.length > 0,
    policies: http.length + meta.length,
    directives,
    flags,
  };
}
