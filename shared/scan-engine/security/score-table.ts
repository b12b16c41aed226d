// Mozilla HTTP Observatory's grading, as data: every result a test can give, its score modifier,
// whether Observatory counts it as a passed test, and a one-line summary (our wording).
// Numbers from mdn/mdn-http-observatory@94042bbf, src/grader/charts.js (algorithm version 6).
// A scan starts at 100 and adds every modifier; bonuses (positive modifiers) count only when the
// penalties alone leave at least 90. Our extra checks (mixed content, version leaks, HTTPS) use
// the same scheme with their own result ids; they are kept out of the Observatory-compatible score.

export interface ResultSpec {
  modifier: number;
  pass: boolean;
  summary: string;
}

export const BASELINE_SCORE = 100;
export const MINIMUM_SCORE_FOR_EXTRA_CREDIT = 90;

/** Observatory's tests (check id = Observatory test name) and their results. */
export const OBSERVATORY_TESTS: Record<string, Record<string, ResultSpec>> = {
  'content-security-policy': {
    'csp-implemented-with-no-unsafe-default-src-none': {
      modifier: 10,
      pass: true,
      summary:
        "Content-Security-Policy blocks everything by default (default-src 'none') and allows nothing unsafe",
    },
    'csp-implemented-with-no-unsafe': {
      modifier: 5,
      pass: true,
      summary:
        "Content-Security-Policy allows no 'unsafe-inline', 'unsafe-eval' or overly broad script sources",
    },
    'csp-implemented-with-unsafe-inline-in-style-src-only': {
      modifier: 0,
      pass: true,
      summary:
        'Content-Security-Policy is strict for scripts; only style-src allows inline, data: or broad sources',
    },
    'csp-implemented-with-insecure-scheme-in-passive-content-only': {
      modifier: -10,
      pass: true,
      summary: 'Content-Security-Policy lets images or media load over plain HTTP on an HTTPS page',
    },
    'csp-implemented-with-unsafe-eval': {
      modifier: -10,
      pass: false,
      summary: "Content-Security-Policy allows 'unsafe-eval'",
    },
    'csp-implemented-with-unsafe-inline': {
      modifier: -20,
      pass: false,
      summary:
        "Content-Security-Policy does not stop script injection: 'unsafe-inline', data: or broad sources in script-src or object-src, or those left unrestricted",
    },
    'csp-implemented-with-insecure-scheme': {
      modifier: -20,
      pass: false,
      summary:
        'Content-Security-Policy lets scripts or other active content load over plain HTTP on an HTTPS page',
    },
    'csp-header-invalid': {
      modifier: -25,
      pass: false,
      summary:
        'Content-Security-Policy cannot be parsed (empty, truncated, repeated directives, or a lone strict-dynamic)',
    },
    'csp-not-implemented': { modifier: -25, pass: false, summary: 'No Content-Security-Policy' },
    'csp-not-implemented-but-reporting-enabled': {
      modifier: -25,
      pass: false,
      summary: 'Content-Security-Policy is only report-only, nothing is enforced',
    },
    'csp-implemented-but-duplicate-directives': {
      modifier: 0,
      pass: true,
      summary: 'Content-Security-Policy is sound but repeats report-uri or report-to',
    },
  },
  cookies: {
    'cookies-secure-with-httponly-sessions-and-samesite': {
      modifier: 5,
      pass: true,
      summary: 'Every cookie is Secure and has SameSite; session cookies are HttpOnly',
    },
    'cookies-secure-with-httponly-sessions': {
      modifier: 0,
      pass: true,
      summary: 'Every cookie is Secure and session cookies are HttpOnly, but not every cookie sets SameSite',
    },
    'cookies-not-found': { modifier: 0, pass: true, summary: 'The page sets no cookies, so none can leak' },
    'cookies-without-secure-flag-but-protected-by-hsts': {
      modifier: -5,
      pass: false,
      summary: 'Cookies lack the Secure flag (HSTS keeps them off plain HTTP)',
    },
    'cookies-session-without-secure-flag-but-protected-by-hsts': {
      modifier: -10,
      pass: false,
      summary: 'A session cookie lacks the Secure flag (HSTS keeps it off plain HTTP)',
    },
    'cookies-without-secure-flag': {
      modifier: -20,
      pass: false,
      summary: 'Cookies lack the Secure flag and can travel over plain HTTP',
    },
    'cookies-samesite-flag-invalid': {
      modifier: -20,
      pass: false,
      summary:
        'A cookie has a SameSite value other than Strict, Lax or None, or SameSite=None without Secure',
    },
    'cookies-anticsrf-without-samesite-flag': {
      modifier: -20,
      pass: false,
      summary: 'An anti-CSRF token cookie has no SameSite flag',
    },
    'cookies-session-without-httponly-flag': {
      modifier: -30,
      pass: false,
      summary: 'A session cookie lacks HttpOnly, so scripts can read it',
    },
    'cookies-session-without-secure-flag': {
      modifier: -40,
      pass: false,
      summary: 'A session cookie lacks the Secure flag and can travel over plain HTTP',
    },
  },
  'cross-origin-resource-sharing': {
    'cross-origin-resource-sharing-not-implemented': {
      modifier: 0,
      pass: true,
      summary: 'Content is not shared cross-origin (no Access-Control-Allow-Origin)',
    },
    'cross-origin-resource-sharing-implemented-with-public-access': {
      modifier: 0,
      pass: true,
      summary: 'Content is public to every origin (Access-Control-Allow-Origin: *), without credentials',
    },
    'cross-origin-resource-sharing-implemented-with-restricted-access': {
      modifier: 0,
      pass: true,
      summary: 'Cross-origin access is limited to specific origins',
    },
    'cross-origin-resource-sharing-implemented-with-universal-access': {
      modifier: -50,
      pass: false,
      summary: 'Any origin is reflected into Access-Control-Allow-Origin with credentials allowed',
    },
  },
  redirection: {
    'redirection-all-redirects-preloaded': {
      modifier: 0,
      pass: true,
      summary: 'Every host in the redirect chain is on the HSTS preload list',
    },
    'redirection-to-https': {
      modifier: 0,
      pass: true,
      summary: 'http:// redirects to https:// on the same host first, and ends on HTTPS',
    },
    'redirection-not-needed-no-http': {
      modifier: 0,
      pass: true,
      summary: 'The site does not answer on plain HTTP',
    },
    'redirection-off-host-from-http': {
      modifier: -5,
      pass: false,
      summary: 'http:// redirects straight to HTTPS on another host, so the first host never gets HSTS',
    },
    'redirection-not-to-https-on-initial-redirection': {
      modifier: -10,
      pass: false,
      summary: 'http:// first redirects to another plain-HTTP URL before reaching HTTPS',
    },
    'redirection-not-to-https': {
      modifier: -20,
      pass: false,
      summary: 'http:// redirects, but not to an HTTPS page',
    },
    'redirection-missing': { modifier: -20, pass: false, summary: 'http:// does not redirect to https://' },
    'redirection-invalid-cert': {
      modifier: -20,
      pass: false,
      summary: 'The redirect to HTTPS lands on an invalid certificate',
    },
  },
  'referrer-policy': {
    'referrer-policy-private': {
      modifier: 5,
      pass: true,
      summary:
        'Referrer-Policy keeps full URLs private (no-referrer, same-origin, strict-origin[-when-cross-origin])',
    },
    'referrer-policy-not-implemented': {
      modifier: 0,
      pass: true,
      summary:
        'Referrer-Policy is not set, and the browsers’ default (strict-origin-when-cross-origin) already keeps full URLs private',
    },
    'referrer-policy-unsafe': {
      modifier: -5,
      pass: false,
      summary:
        'Referrer-Policy leaks URLs (origin, origin-when-cross-origin, unsafe-url or no-referrer-when-downgrade)',
    },
    'referrer-policy-header-invalid': {
      modifier: -5,
      pass: false,
      summary: 'Referrer-Policy has no recognised value',
    },
  },
  'strict-transport-security': {
    'hsts-preloaded': { modifier: 5, pass: true, summary: 'The host is on the HSTS preload list' },
    'hsts-implemented-max-age-at-least-six-months': {
      modifier: 0,
      pass: true,
      summary: 'Strict-Transport-Security is set for at least six months',
    },
    'hsts-implemented-max-age-less-than-six-months': {
      modifier: -10,
      pass: false,
      summary: 'Strict-Transport-Security max-age is under six months',
    },
    'hsts-not-implemented': { modifier: -20, pass: false, summary: 'No Strict-Transport-Security header' },
    'hsts-header-invalid': {
      modifier: -20,
      pass: false,
      summary: 'Strict-Transport-Security cannot be parsed (no max-age, or sent twice)',
    },
    'hsts-not-implemented-no-https': {
      modifier: -20,
      pass: false,
      summary: 'Strict-Transport-Security needs HTTPS, which the page is not served over',
    },
    'hsts-invalid-cert': {
      modifier: -20,
      pass: false,
      summary: 'Strict-Transport-Security does not work with an invalid certificate',
    },
  },
  'subresource-integrity': {
    'sri-implemented-and-all-scripts-loaded-securely': {
      modifier: 5,
      pass: true,
      summary: 'Scripts come from the same site and use Subresource Integrity',
    },
    'sri-implemented-and-external-scripts-loaded-securely': {
      modifier: 5,
      pass: true,
      summary: 'Third-party scripts load over HTTPS with Subresource Integrity',
    },
    'sri-not-implemented-response-not-html': {
      modifier: 0,
      pass: true,
      summary: 'Subresource Integrity only applies to HTML pages',
    },
    'sri-not-implemented-but-no-scripts-loaded': {
      modifier: 0,
      pass: true,
      summary: 'The page loads no scripts',
    },
    'sri-not-implemented-but-all-scripts-loaded-from-secure-origin': {
      modifier: 0,
      pass: true,
      summary: 'Scripts come from the same site; Subresource Integrity would earn extra credit',
    },
    'sri-not-implemented-but-external-scripts-loaded-securely': {
      modifier: -5,
      pass: false,
      summary: 'Third-party scripts load over HTTPS but without Subresource Integrity',
    },
    'sri-implemented-but-external-scripts-not-loaded-securely': {
      modifier: -20,
      pass: false,
      summary: 'Third-party scripts use Subresource Integrity but load over HTTP or a protocol-relative URL',
    },
    'sri-not-implemented-and-external-scripts-not-loaded-securely': {
      modifier: -50,
      pass: false,
      summary: 'Third-party scripts load over HTTP or a protocol-relative URL, without Subresource Integrity',
    },
  },
  'x-content-type-options': {
    'x-content-type-options-nosniff': {
      modifier: 0,
      pass: true,
      summary: 'X-Content-Type-Options is nosniff',
    },
    'x-content-type-options-not-implemented': {
      modifier: -5,
      pass: false,
      summary: 'No X-Content-Type-Options: nosniff',
    },
    'x-content-type-options-header-invalid': {
      modifier: -5,
      pass: false,
      summary: 'X-Content-Type-Options is not exactly nosniff',
    },
  },
  'x-frame-options': {
    'x-frame-options-implemented-via-csp': {
      modifier: 5,
      pass: true,
      summary: 'Framing is controlled by Content-Security-Policy frame-ancestors',
    },
    'x-frame-options-sameorigin-or-deny': {
      modifier: 5,
      pass: true,
      summary: 'X-Frame-Options is DENY or SAMEORIGIN',
    },
    'x-frame-options-allow-from-origin': {
      modifier: 0,
      pass: true,
      summary: 'X-Frame-Options uses ALLOW-FROM, which browsers ignore; use frame-ancestors',
    },
    'x-frame-options-not-implemented': {
      modifier: -20,
      pass: false,
      summary: 'Nothing stops other sites framing the page (no X-Frame-Options or frame-ancestors)',
    },
    'x-frame-options-header-invalid': {
      modifier: -20,
      pass: false,
      summary: 'X-Frame-Options has an unrecognised value',
    },
  },
  'cross-origin-resource-policy': {
    'corp-implemented-with-same-origin': {
      modifier: 10,
      pass: true,
      summary: 'Cross-Origin-Resource-Policy keeps the response to the same origin',
    },
    'corp-implemented-with-same-site': {
      modifier: 10,
      pass: true,
      summary: 'Cross-Origin-Resource-Policy keeps the response to the same site',
    },
    'corp-implemented-with-cross-origin': {
      modifier: 0,
      pass: true,
      summary: 'Cross-Origin-Resource-Policy explicitly allows cross-origin use',
    },
    'corp-not-implemented': {
      modifier: 0,
      pass: true,
      summary:
        'Cross-Origin-Resource-Policy is left at the browser default (cross-origin use allowed), which suits public content',
    },
    'corp-header-invalid': {
      modifier: -5,
      pass: false,
      summary: 'Cross-Origin-Resource-Policy has an unrecognised value',
    },
  },
  'cross-origin-opener-policy': {
    'coop-implemented-with-same-origin': {
      modifier: 10,
      pass: true,
      summary: 'Cross-Origin-Opener-Policy isolates the page from cross-origin openers',
    },
    'coop-implemented-with-same-origin-allow-popups': {
      modifier: 10,
      pass: true,
      summary: 'Cross-Origin-Opener-Policy isolates the page but keeps its own popups',
    },
    'coop-implemented-with-noopener-allow-popups': {
      modifier: 10,
      pass: true,
      summary: 'Cross-Origin-Opener-Policy isolates the page even from same-origin openers',
    },
    'coop-implemented-with-unsafe-none': {
      modifier: 0,
      pass: true,
      summary: 'Cross-Origin-Opener-Policy is unsafe-none (the default, no isolation)',
    },
    'coop-not-implemented': {
      modifier: 0,
      pass: true,
      summary:
        'Cross-Origin-Opener-Policy is left at the browser default, fine unless the page needs cross-origin isolation',
    },
    'coop-header-invalid': {
      modifier: -5,
      pass: false,
      summary: 'Cross-Origin-Opener-Policy has an unrecognised value or is sent twice',
    },
  },
  'cross-origin-embedder-policy': {
    'coep-implemented-with-require-corp': {
      modifier: 10,
      pass: true,
      summary: 'Cross-Origin-Embedder-Policy requires cross-origin resources to opt in (require-corp)',
    },
    'coep-implemented-with-credentialless': {
      modifier: 10,
      pass: true,
      summary: 'Cross-Origin-Embedder-Policy loads cross-origin resources without credentials',
    },
    'coep-implemented-with-unsafe-none': {
      modifier: 0,
      pass: true,
      summary: 'Cross-Origin-Embedder-Policy is unsafe-none (the default)',
    },
    'coep-not-implemented': {
      modifier: 0,
      pass: true,
      summary:
        'Cross-Origin-Embedder-Policy is left at the browser default, fine unless the page needs cross-origin isolation',
    },
    'coep-header-invalid': {
      modifier: -5,
      pass: false,
      summary: 'Cross-Origin-Embedder-Policy has an unrecognised value or is sent twice',
    },
  },
};

/** Our own security checks beyond Observatory, graded on the same scale. */
export const EXTENSION_TESTS: Record<string, Record<string, ResultSpec>> = {
  https: {
    'https-implemented': { modifier: 0, pass: true, summary: 'The page is served over HTTPS' },
    // On top of HSTS' own no-HTTPS penalty: clear-text delivery is the worst single finding.
    'https-not-implemented': { modifier: -20, pass: false, summary: 'The page is served over plain HTTP' },
    'https-invalid-cert': {
      modifier: -20,
      pass: false,
      summary: 'The page is served over HTTPS with a certificate browsers reject',
    },
  },
  'mixed-content': {
    'mixed-content-none': {
      modifier: 0,
      pass: true,
      summary: 'The HTTPS page loads nothing over plain HTTP',
    },
    'mixed-content-upgraded': {
      modifier: 0,
      pass: true,
      summary:
        'The page references HTTP resources, but upgrade-insecure-requests makes browsers fetch them over HTTPS',
    },
    // Browsers auto-upgrade or block passive mixed content today, so it costs less than active.
    'mixed-content-passive': {
      modifier: -10,
      pass: false,
      summary: 'The HTTPS page loads images or media over plain HTTP',
    },
    'mixed-content-active': {
      modifier: -20,
      pass: false,
      summary: 'The HTTPS page loads scripts, styles, frames or form targets over plain HTTP',
    },
  },
  'version-leaks': {
    'version-leaks-none': {
      modifier: 0,
      pass: true,
      summary: 'Response headers reveal no software names or versions',
    },
    'version-leaks-product-only': {
      modifier: 0,
      pass: true,
      summary: 'Response headers name the server software, but no versions',
    },
    'version-leaks-version-disclosed': {
      modifier: -5,
      pass: false,
      summary: 'Response headers or the generator tag reveal software versions',
    },
  },
};

const ALL_RESULTS = new Map<string, ResultSpec & { test: string; observatory: boolean }>();
for (const [tests, observatory] of [
  [OBSERVATORY_TESTS, true],
  [EXTENSION_TESTS, false],
] as const) {
  for (const [test, results] of Object.entries(tests)) {
    for (const [id, spec] of Object.entries(results)) ALL_RESULTS.set(id, { ...spec, test, observatory });
  }
}

/** The table entry for a result id; throws on an unknown id (a typo in a check is a bug). */
export function resultSpec(resultId: string): ResultSpec & { test: string; observatory: boolean } {
  const spec = ALL_RESULTS.get(resultId);
  if (!spec) throw new Error(`unknown security result id: ${resultId}`);
  return spec;
}

/** Observatory's grade chart: a score rounded down to a multiple of 5 (capped at 100) -> grade. */
export const GRADE_CHART: { min: number; grade: string }[] = [
  { min: 100, grade: 'A+' },
  { min: 90, grade: 'A' },
  { min: 85, grade: 'A-' },
  { min: 80, grade: 'B+' },
  { min: 70, grade: 'B' },
  { min: 65, grade: 'B-' },
  { min: 60, grade: 'C+' },
  { min: 50, grade: 'C' },
  { min: 45, grade: 'C-' },
  { min: 40, grade: 'D+' },
  { min: 30, grade: 'D' },
  { min: 25, grade: 'D-' },
  { min: 0, grade: 'F' },
];

export function observatoryGrade(score: number): string {
  const s = Math.max(0, score);
  const key = Math.min(s - (s % 5), 100);
  for (const band of GRADE_CHART) if (key >= band.min) return band.grade;
  return 'F';
}

/** What scoring needs of a check run (structurally a CheckRun; kept minimal to avoid an import cycle). */
export interface ScoredRun {
  outcome: string;
  evidence?: Record<string, unknown>;
}

/**
 * The table entry behind a run: its `evidence.result` looked up in the score table at scoring
 * time (the `modifier` a check copies into its evidence is for readers, never for scoring).
 * Runs that did not apply, errored, or carry no known result id give null.
 */
export function specOfRun(run: ScoredRun): (ResultSpec & { test: string; observatory: boolean }) | null {
  if (run.outcome === 'error' || run.outcome === 'not_applicable') return null;
  const resultId = run.evidence?.result;
  return typeof resultId === 'string' ? (ALL_RESULTS.get(resultId) ?? null) : null;
}

/** 100 plus penalties, plus bonuses only when the penalties leave at least 90. Unclamped. */
function tally(runs: Iterable<ScoredRun>, include: (spec: ResultSpec & { observatory: boolean }) => boolean) {
  let penalties = 0;
  let bonuses = 0;
  let passed = 0;
  let failed = 0;
  for (const run of runs) {
    const spec = specOfRun(run);
    if (!spec || !include(spec)) continue;
    if (spec.modifier < 0) penalties += spec.modifier;
    else bonuses += spec.modifier;
    if (spec.pass) passed++;
    else failed++;
  }
  const base = BASELINE_SCORE + penalties;
  return { raw: base >= MINIMUM_SCORE_FOR_EXTRA_CREDIT ? base + bonuses : base, passed, failed };
}

/**
 * The Observatory score from check runs, Mozilla's tests only (our extension checks add
 * nothing): 100 plus every modifier, bonuses only from a base of 90. Not clamped above (bonuses
 * lift it past 100); floored at 0 as Observatory does. Graded by Observatory's chart.
 */
export function observatoryScore(runs: Iterable<ScoredRun>): {
  score: number;
  grade: string;
  passed: number;
  failed: number;
} {
  const { raw, passed, failed } = tally(runs, (spec) => spec.observatory);
  const score = Math.max(0, raw);
  return { score, grade: observatoryGrade(score), passed, failed };
}

/** What the security dimension keeps in its evidence. */
export interface SecurityEvidence {
  /** Mozilla's tests only, before clamping (see observatoryScore), and its A+..F grade. */
  observatory: { score: number; grade: string; testsPassed: number; testsFailed: number };
  /** 100 plus every security check's modifier (ours included), before clamping to 0..100. */
  rawScore: number;
}

/**
 * The one implementation of the security dimension's `modifiers` method: every applicable
 * security check's modifier (Observatory's and our extensions'), with Observatory's extra-credit
 * rule, clamped to 0..100, plus the evidence the dimension keeps.
 */
export function modifierScore(runs: Iterable<ScoredRun>): { score: number; evidence: SecurityEvidence } {
  const list = [...runs];
  const all = tally(list, () => true);
  const obs = observatoryScore(list);
  return {
    score: Math.max(0, Math.min(100, all.raw)),
    evidence: {
      observatory: { score: obs.score, grade: obs.grade, testsPassed: obs.passed, testsFailed: obs.failed },
      rawScore: all.raw,
    },
  };
}
