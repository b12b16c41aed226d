import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PageArtifact, ResourcesArtifact } from '../../../../shared/scan-engine/artifacts.ts';
import type { CheckResult } from '../../../../shared/scan-engine/check.ts';
import { CORS_PROBE_ORIGIN } from '../../../../shared/scan-engine/security/cors-probe.ts';
import { resultSpec } from '../../../../shared/scan-engine/security/score-table.ts';
import { makePage, resultOf, runSecurity, withHeaders } from '../../../helpers/security-fixtures.ts';

// Checks as tables of cases: a Page artifact in, the Observatory-style result out
// (null: the check does not apply).
type Case = [description: string, page: PageArtifact, expected: string | null, resources?: ResourcesArtifact];

const HSTS = { 'strict-transport-security': 'max-age=31536000; includeSubDomains' };
const html = (body: string, head = '') =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const httpPage = (over: Partial<PageArtifact> = {}) => makePage({ finalUrl: 'http://mozilla.org/', ...over });
const hop = (url: string, location: string) => ({ url, status: 301, location });
const cookies = (setCookies: string[], headers: Record<string, string> = {}) =>
  withHeaders(headers, { setCookies });
const resources = (
  ...entries: [url: string, type: ResourcesArtifact['entries'][number]['type']][]
): ResourcesArtifact => ({
  entries: entries.map(([url, type]) => ({
    url,
    type,
    status: 200,
    bytes: 10,
    contentType: null,
    contentEncoding: null,
    cacheControl: null,
    renderBlocking: false,
    sameOrigin: false,
  })),
  skipped: 0,
});

const TABLES: Record<string, Case[]> = {
  https: [
    ['served over https', makePage(), 'https-implemented'],
    ['served over http', httpPage(), 'https-not-implemented'],
    [
      'certificate rejected',
      makePage({ tls: { protocol: 'TLSv1.3', cipher: null, validTo: null, authorized: false } }),
      'https-invalid-cert',
    ],
  ],
  'strict-transport-security': [
    ['missing', makePage(), 'hsts-not-implemented'],
    [
      'one year with preload',
      withHeaders({ 'strict-transport-security': 'max-age=31536000; includeSubDomains; preload' }),
      'hsts-implemented-max-age-at-least-six-months',
    ],
    [
      'exactly 180 days',
      withHeaders({ 'strict-transport-security': 'max-age=15552000' }),
      'hsts-implemented-max-age-at-least-six-months',
    ],
    [
      'a second short',
      withHeaders({ 'strict-transport-security': 'max-age=15551999' }),
      'hsts-implemented-max-age-less-than-six-months',
    ],
    [
      'quoted max-age',
      withHeaders({ 'strict-transport-security': 'max-age="31536000"' }),
      'hsts-implemented-max-age-at-least-six-months',
    ],
    ['no max-age', withHeaders({ 'strict-transport-security': 'includeSubDomains' }), 'hsts-header-invalid'],
    [
      'max-age not a number',
      withHeaders({ 'strict-transport-security': 'max-age=forever' }),
      'hsts-header-invalid',
    ],
    [
      'sent twice',
      withHeaders({ 'strict-transport-security': 'max-age=1, max-age=2' }),
      'hsts-header-invalid',
    ],
    ['over http', httpPage({ headers: HSTS }), 'hsts-not-implemented-no-https'],
    [
      'invalid certificate',
      withHeaders(HSTS, { tls: { protocol: null, cipher: null, validTo: null, authorized: false } }),
      'hsts-invalid-cert',
    ],
  ],
  'content-security-policy': [
    ['missing', makePage(), 'csp-not-implemented'],
    [
      'report-only',
      withHeaders({ 'content-security-policy-report-only': "default-src 'none'" }),
      'csp-not-implemented-but-reporting-enabled',
    ],
    [
      "Google's strict CSP (styles left open)",
      withHeaders({
        'content-security-policy':
          "object-src 'none'; script-src 'nonce-r4nd0m' 'strict-dynamic' https: 'unsafe-inline'; base-uri 'none'",
      }),
      'csp-implemented-with-unsafe-inline-in-style-src-only',
    ],
    [
      'repeated report-uri',
      withHeaders({ 'content-security-policy': "default-src 'none'; report-uri /a; report-uri /b" }),
      'csp-implemented-but-duplicate-directives',
    ],
    [
      'http sources on an http page',
      httpPage({ headers: { 'content-security-policy': 'default-src http://mozilla.org' } }),
      'csp-implemented-with-no-unsafe',
    ],
    [
      'a second policy narrows a broad script-src',
      withHeaders({
        'content-security-policy':
          "object-src 'none'; style-src 'self'; script-src https:, script-src https://cdn.mozilla.org",
      }),
      'csp-implemented-with-no-unsafe',
    ],
    [
      "a second policy of default-src * cannot widen 'none'",
      withHeaders({ 'content-security-policy': "default-src 'none', default-src *" }),
      'csp-implemented-with-no-unsafe-default-src-none',
    ],
    [
      'meta tag only',
      makePage({
        html: html('', `<meta http-equiv="content-security-policy" content="default-src 'none'">`),
      }),
      'csp-implemented-with-no-unsafe-default-src-none',
    ],
    [
      'invalid meta tag',
      makePage({ html: html('', '<meta http-equiv="Content-Security-Policy" content="x">') }),
      'csp-header-invalid',
    ],
  ],
  'x-content-type-options': [
    ['missing', makePage(), 'x-content-type-options-not-implemented'],
    ['nosniff', withHeaders({ 'x-content-type-options': 'nosniff' }), 'x-content-type-options-nosniff'],
    [
      'case and spaces',
      withHeaders({ 'x-content-type-options': ' NoSniff ' }),
      'x-content-type-options-nosniff',
    ],
    [
      'sent twice',
      withHeaders({ 'x-content-type-options': 'nosniff, nosniff' }),
      'x-content-type-options-header-invalid',
    ],
  ],
  'x-frame-options': [
    ['missing', makePage(), 'x-frame-options-not-implemented'],
    ['DENY', withHeaders({ 'x-frame-options': 'DENY' }), 'x-frame-options-sameorigin-or-deny'],
    ['sameorigin', withHeaders({ 'x-frame-options': 'sameorigin' }), 'x-frame-options-sameorigin-or-deny'],
    [
      'ALLOW-FROM',
      withHeaders({ 'x-frame-options': 'ALLOW-FROM https://a.example' }),
      'x-frame-options-allow-from-origin',
    ],
    ['junk', withHeaders({ 'x-frame-options': 'never' }), 'x-frame-options-header-invalid'],
    [
      'frame-ancestors alone',
      withHeaders({ 'content-security-policy': "frame-ancestors 'self'" }),
      'x-frame-options-implemented-via-csp',
    ],
    [
      'frame-ancestors in a meta tag does not count',
      makePage({
        html: html('', `<meta http-equiv="Content-Security-Policy" content="frame-ancestors 'none'">`),
      }),
      'x-frame-options-not-implemented',
    ],
  ],
  'referrer-policy': [
    ['missing', makePage(), 'referrer-policy-not-implemented'],
    [
      'strict-origin-when-cross-origin',
      withHeaders({ 'referrer-policy': 'strict-origin-when-cross-origin' }),
      'referrer-policy-private',
    ],
    [
      'no-referrer-when-downgrade',
      withHeaders({ 'referrer-policy': 'no-referrer-when-downgrade' }),
      'referrer-policy-unsafe',
    ],
    [
      'last known value wins',
      withHeaders({ 'referrer-policy': 'no-referrer, unsafe-url, whimsy' }),
      'referrer-policy-unsafe',
    ],
    ['nothing recognised', withHeaders({ 'referrer-policy': 'whimsy' }), 'referrer-policy-header-invalid'],
    [
      'the meta tag overrides the header',
      withHeaders(
        { 'referrer-policy': 'no-referrer' },
        { html: html('', '<meta name="referrer" content="unsafe-url">') },
      ),
      'referrer-policy-unsafe',
    ],
  ],
  cookies: [
    ['none', makePage(), 'cookies-not-found'],
    ['only an affinity cookie', cookies(['heroku-session-affinity=x; Path=/']), 'cookies-not-found'],
    [
      'all secure, sessions HttpOnly, all SameSite',
      cookies(['SESSIONID=a; Secure; HttpOnly; SameSite=Lax', 'theme=dark; Secure; SameSite=Strict']),
      'cookies-secure-with-httponly-sessions-and-samesite',
    ],
    [
      'one cookie without SameSite',
      cookies(['SESSIONID=a; Secure; HttpOnly', 'theme=dark; Secure; SameSite=Lax']),
      'cookies-secure-with-httponly-sessions',
    ],
    ['not Secure, no HSTS', cookies(['theme=dark; SameSite=Lax']), 'cookies-without-secure-flag'],
    [
      'not Secure, HSTS',
      cookies(['theme=dark; SameSite=Lax'], HSTS),
      'cookies-without-secure-flag-but-protected-by-hsts',
    ],
    [
      'session not Secure, no HSTS',
      cookies(['sessionid=a; HttpOnly']),
      'cookies-session-without-secure-flag',
    ],
    [
      'session not Secure, HSTS',
      cookies(['sessionid=a; HttpOnly; SameSite=Lax'], HSTS),
      'cookies-session-without-secure-flag-but-protected-by-hsts',
    ],
    [
      'login cookie without HttpOnly',
      cookies(['login_token=a; Secure; SameSite=Lax']),
      'cookies-session-without-httponly-flag',
    ],
    [
      'anti-CSRF token without SameSite',
      cookies(['csrftoken=a; Secure']),
      'cookies-anticsrf-without-samesite-flag',
    ],
    ['unknown SameSite value', cookies(['a=b; Secure; SameSite=Invalid']), 'cookies-samesite-flag-invalid'],
    ['empty SameSite value', cookies(['a=b; Secure; SameSite=']), 'cookies-samesite-flag-invalid'],
    ['SameSite=None without Secure', cookies(['a=b; SameSite=None'], HSTS), 'cookies-samesite-flag-invalid'],
  ],
  'cross-origin-resource-sharing': [
    ['no CORS headers', makePage(), 'cross-origin-resource-sharing-not-implemented'],
    [
      'public',
      withHeaders({ 'access-control-allow-origin': '*' }),
      'cross-origin-resource-sharing-implemented-with-public-access',
    ],
    [
      'a named partner with credentials',
      withHeaders({
        'access-control-allow-origin': 'https://partner.example',
        'access-control-allow-credentials': 'true',
      }),
      'cross-origin-resource-sharing-implemented-with-restricted-access',
    ],
    [
      'our probe origin reflected with credentials',
      withHeaders({
        'access-control-allow-origin': CORS_PROBE_ORIGIN,
        'access-control-allow-credentials': 'true',
      }),
      'cross-origin-resource-sharing-implemented-with-universal-access',
    ],
    [
      'our probe origin reflected without credentials',
      withHeaders({ 'access-control-allow-origin': CORS_PROBE_ORIGIN }),
      'cross-origin-resource-sharing-implemented-with-restricted-access',
    ],
  ],
  'cross-origin-resource-policy': [
    ['missing', makePage(), 'corp-not-implemented'],
    [
      'same-origin',
      withHeaders({ 'cross-origin-resource-policy': 'same-origin' }),
      'corp-implemented-with-same-origin',
    ],
    [
      'Same-Site',
      withHeaders({ 'cross-origin-resource-policy': 'Same-Site' }),
      'corp-implemented-with-same-site',
    ],
    [
      'cross-origin',
      withHeaders({ 'cross-origin-resource-policy': 'cross-origin' }),
      'corp-implemented-with-cross-origin',
    ],
    [
      'sent twice',
      withHeaders({ 'cross-origin-resource-policy': 'same-origin, same-origin' }),
      'corp-header-invalid',
    ],
  ],
  'cross-origin-opener-policy': [
    ['missing', makePage(), 'coop-not-implemented'],
    [
      'same-origin',
      withHeaders({ 'cross-origin-opener-policy': 'same-origin' }),
      'coop-implemented-with-same-origin',
    ],
    [
      'with a report-to parameter',
      withHeaders({ 'cross-origin-opener-policy': 'same-origin; report-to="coop"' }),
      'coop-implemented-with-same-origin',
    ],
    [
      'same-origin-allow-popups',
      withHeaders({ 'cross-origin-opener-policy': 'same-origin-allow-popups' }),
      'coop-implemented-with-same-origin-allow-popups',
    ],
    [
      'noopener-allow-popups',
      withHeaders({ 'cross-origin-opener-policy': 'noopener-allow-popups' }),
      'coop-implemented-with-noopener-allow-popups',
    ],
    [
      'unsafe-none',
      withHeaders({ 'cross-origin-opener-policy': 'unsafe-none' }),
      'coop-implemented-with-unsafe-none',
    ],
    [
      'a quoted string is not a token',
      withHeaders({ 'cross-origin-opener-policy': '"same-origin"' }),
      'coop-header-invalid',
    ],
    [
      'sent twice',
      withHeaders({ 'cross-origin-opener-policy': 'same-origin, same-origin' }),
      'coop-header-invalid',
    ],
    ['unknown value', withHeaders({ 'cross-origin-opener-policy': 'isolate' }), 'coop-header-invalid'],
  ],
  'cross-origin-embedder-policy': [
    ['missing', makePage(), 'coep-not-implemented'],
    [
      'require-corp',
      withHeaders({ 'cross-origin-embedder-policy': 'require-corp' }),
      'coep-implemented-with-require-corp',
    ],
    [
      'credentialless',
      withHeaders({ 'cross-origin-embedder-policy': 'credentialless' }),
      'coep-implemented-with-credentialless',
    ],
    [
      'unsafe-none',
      withHeaders({ 'cross-origin-embedder-policy': 'unsafe-none' }),
      'coep-implemented-with-unsafe-none',
    ],
    [
      'sent twice',
      withHeaders({ 'cross-origin-embedder-policy': 'require-corp, require-corp' }),
      'coep-header-invalid',
    ],
  ],
  'subresource-integrity': [
    ['no scripts', makePage(), 'sri-not-implemented-but-no-scripts-loaded'],
    [
      'inline script only',
      makePage({ html: html('<script>1</script>') }),
      'sri-not-implemented-but-all-scripts-loaded-from-secure-origin',
    ],
    [
      'script from a subdomain',
      makePage({ html: html('<script src="https://cdn.mozilla.org/a.js"></script>') }),
      'sri-not-implemented-but-all-scripts-loaded-from-secure-origin',
    ],
    [
      'third-party script with SRI',
      makePage({
        html: html('<script src="https://cdn.example/a.js" integrity="sha384-x" crossorigin></script>'),
      }),
      'sri-implemented-and-external-scripts-loaded-securely',
    ],
    [
      'third-party script without SRI',
      makePage({ html: html('<script src="https://cdn.example/a.js"></script>') }),
      'sri-not-implemented-but-external-scripts-loaded-securely',
    ],
    [
      'same registrable domain under a country code',
      makePage({
        finalUrl: 'https://shop.example.co.uk/',
        html: html('<script src="https://static.example.co.uk/a.js"></script>'),
      }),
      'sri-not-implemented-but-all-scripts-loaded-from-secure-origin',
    ],
    [
      'another site under the same country code',
      makePage({
        finalUrl: 'https://shop.example.co.uk/',
        html: html('<script src="https://other.co.uk/a.js"></script>'),
      }),
      'sri-not-implemented-but-external-scripts-loaded-securely',
    ],
    [
      'not an HTML response',
      withHeaders({ 'content-type': 'application/pdf' }, { contentType: 'application/pdf' }),
      'sri-not-implemented-response-not-html',
    ],
  ],
  redirection: [
    ['https scan, http redirects', makePage({ httpRedirectsToHttps: true }), 'redirection-to-https'],
    ['https scan, http does not redirect', makePage({ httpRedirectsToHttps: false }), 'redirection-missing'],
    ['https scan, not probed', makePage({ httpRedirectsToHttps: null }), null],
    [
      'http to https on the same host',
      makePage({
        requestedUrl: 'http://mozilla.org/',
        redirectChain: [hop('http://mozilla.org/', 'https://mozilla.org/')],
      }),
      'redirection-to-https',
    ],
    ['http without redirect', httpPage({ requestedUrl: 'http://mozilla.org/' }), 'redirection-missing'],
    [
      'http to another http first',
      makePage({
        requestedUrl: 'http://mozilla.org/',
        finalUrl: 'https://www.mozilla.org/',
        redirectChain: [
          hop('http://mozilla.org/', 'http://www.mozilla.org/'),
          hop('http://www.mozilla.org/', 'https://www.mozilla.org/'),
        ],
      }),
      'redirection-not-to-https-on-initial-redirection',
    ],
    [
      'http straight to https on another host',
      makePage({
        requestedUrl: 'http://mozilla.org/',
        finalUrl: 'https://www.mozilla.org/',
        redirectChain: [hop('http://mozilla.org/', 'https://www.mozilla.org/')],
      }),
      'redirection-off-host-from-http',
    ],
    [
      'redirects but stays on http',
      httpPage({
        requestedUrl: 'http://mozilla.org/',
        finalUrl: 'http://mozilla.org/home',
        redirectChain: [hop('http://mozilla.org/', '/home')],
      }),
      'redirection-not-to-https',
    ],
    [
      'redirects to a bad certificate',
      makePage({
        requestedUrl: 'http://mozilla.org/',
        redirectChain: [hop('http://mozilla.org/', 'https://mozilla.org/')],
        tls: { protocol: null, cipher: null, validTo: null, authorized: false },
      }),
      'redirection-invalid-cert',
    ],
  ],
  'mixed-content': [
    ['http page', httpPage({ html: html('<img src="http://a.example/x.png">') }), null],
    [
      'all https and protocol-relative',
      makePage({
        html: html('<img src="https://a.example/x.png"><script src="//cdn.example/a.js"></script>'),
      }),
      'mixed-content-none',
    ],
    [
      'an http image',
      makePage({ html: html('<img src="http://a.example/x.png">') }),
      'mixed-content-passive',
    ],
    [
      'an http image in srcset',
      makePage({ html: html('<img src="/a.png" srcset="/a2.png 2x, http://a.example/a3.png 3x">') }),
      'mixed-content-passive',
    ],
    [
      'relative image under an http base',
      makePage({ html: html('<img src="x.png">', '<base href="http://static.example/">') }),
      'mixed-content-passive',
    ],
    [
      'an http script',
      makePage({
        html: html('<img src="http://a.example/x.png"><script src="http://a.example/a.js"></script>'),
      }),
      'mixed-content-active',
    ],
    [
      'an http stylesheet',
      makePage({ html: html('', '<link rel="Stylesheet" href="http://a.example/a.css">') }),
      'mixed-content-active',
    ],
    [
      'a form posting to http',
      makePage({ html: html('<form action="http://a.example/login"></form>') }),
      'mixed-content-active',
    ],
    [
      'a gathered http font',
      makePage(),
      'mixed-content-active',
      resources(['http://a.example/f.woff2', 'font']),
    ],
    [
      'upgrade-insecure-requests',
      withHeaders(
        { 'content-security-policy': 'upgrade-insecure-requests' },
        { html: html('<script src="http://a.example/a.js"></script>') },
      ),
      'mixed-content-upgraded',
    ],
    [
      'upgrade-insecure-requests in a meta tag of an otherwise invalid policy',
      makePage({
        html: html(
          '<img src="http://a.example/x.png">',
          `<meta http-equiv="Content-Security-Policy" content="upgrade-insecure-requests; img-src 'self'; img-src *">`,
        ),
      }),
      'mixed-content-upgraded',
    ],
  ],
  'version-leaks': [
    ['no revealing headers', makePage(), 'version-leaks-none'],
    ['server name only', withHeaders({ server: 'nginx' }), 'version-leaks-product-only'],
    [
      'a CDN node id is not a version',
      withHeaders({ server: 'ECS (dcb/7F84)' }),
      'version-leaks-product-only',
    ],
    ['a source map header', withHeaders({ sourcemap: '/app.js.map' }), 'version-leaks-product-only'],
    [
      'server with version',
      withHeaders({ server: 'nginx/1.18.0 (Ubuntu)' }),
      'version-leaks-version-disclosed',
    ],
    ['PHP version', withHeaders({ 'x-powered-by': 'PHP/8.1.2' }), 'version-leaks-version-disclosed'],
    [
      'ASP.NET version header',
      withHeaders({ 'x-aspnet-version': '4.0.30319' }),
      'version-leaks-version-disclosed',
    ],
    [
      'CMS generator header',
      withHeaders({ 'x-generator': 'Drupal 10 (https://www.drupal.org)' }),
      'version-leaks-version-disclosed',
    ],
    [
      'generator meta tag',
      makePage({ html: html('', '<meta name="generator" content="WordPress 6.4.2">') }),
      'version-leaks-version-disclosed',
    ],
    [
      'unversioned generator meta tag',
      makePage({ html: html('', '<meta name="generator" content="Hugo">') }),
      'version-leaks-none',
    ],
  ],
};

for (const [checkId, cases] of Object.entries(TABLES)) {
  describe(`security check ${checkId}`, () => {
    for (const [description, page, expected, res] of cases) {
      it(`${description} -> ${expected ?? 'not applicable'}`, () => {
        const run = runSecurity(checkId, page, res);
        if (expected === null) {
          assert.equal(run.outcome, 'not_applicable');
          return;
        }
        assert.equal(resultOf(run), expected, run.message);
        const spec = resultSpec(expected);
        const evidence = (run as CheckResult).evidence ?? {};
        assert.equal(evidence.modifier, spec.modifier);
        // Outcome follows the table: clean passes pass, costly passes warn, the rest fail.
        assert.equal(run.outcome, spec.pass ? (spec.modifier >= 0 ? 'pass' : 'warn') : 'fail');
        assert.ok(run.message.length > 0);
      });
    }
  });
}

describe('security check messages and evidence', () => {
  it('name the offending cookies and scripts', () => {
    const run = runSecurity('cookies', cookies(['sessionid=a; Secure', 'theme=x; Secure; SameSite=Lax']));
    assert.match(run.message, /sessionid/);
    assert.doesNotMatch(run.message, /theme/);
    const sri = runSecurity(
      'subresource-integrity',
      makePage({ html: html('<script src="http://cdn.example/a.js"></script>') }),
    );
    assert.match(sri.message, /http:\/\/cdn\.example\/a\.js/);
  });

  it('record the parsed policy for CSP and HSTS', () => {
    const csp = runSecurity(
      'content-security-policy',
      withHeaders({ 'content-security-policy': "default-src 'none'; img-src 'self'" }),
    );
    assert.deepEqual((csp as CheckResult).evidence?.directives, {
      'default-src': ["'none'"],
      'img-src': ["'self'"],
    });
    const hsts = runSecurity(
      'strict-transport-security',
      withHeaders({ 'strict-transport-security': 'max-age=63072000; includeSubDomains; preload' }),
    );
    assert.equal((hsts as CheckResult).evidence?.maxAge, 63072000);
    assert.equal((hsts as CheckResult).evidence?.preload, true);
  });
});
