import { defineCheck } from '../../check.ts';
import { analyzeHsts } from '../../security/hsts.ts';
import { securityResult } from '../../security/result.ts';
import { type CookieInfo, parseSetCookie } from '../../security/set-cookie.ts';

// Findings from least to most severe (Observatory's order); the worst one found is reported.
const SEVERITY = [
  'cookies-without-secure-flag-but-protected-by-hsts',
  'cookies-without-secure-flag',
  'cookies-session-without-secure-flag-but-protected-by-hsts',
  'cookies-samesite-flag-invalid',
  'cookies-anticsrf-without-samesite-flag',
  'cookies-session-without-httponly-flag',
  'cookies-session-without-secure-flag',
];
// A load balancer's affinity cookie carries no session (Observatory ignores it too).
const IGNORED = new Set(['heroku-session-affinity']);

export default defineCheck({
  meta: {
    id: 'cookies',
    title: 'Cookies are Secure, HttpOnly for sessions, and SameSite',
    failureTitle: 'Cookies are missing Secure, HttpOnly or SameSite',
    description:
      'Cookies without Secure can leak over plain HTTP, session cookies without HttpOnly can be stolen by injected scripts, and SameSite limits cross-site request forgery. Set all three.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const cookies = Page.setCookies
      .map(parseSetCookie)
      .filter((c): c is CookieInfo => c !== null && !IGNORED.has(c.name));
    if (cookies.length === 0) return securityResult('cookies-not-found');

    const hsts = analyzeHsts(Page).pass;
    const findings = new Map<string, string[]>(); // result id -> cookie names
    const note = (result: string, cookie: CookieInfo) =>
      findings.set(result, [...(findings.get(result) ?? []), cookie.name]);
    for (const c of cookies) {
      const name = c.name.toLowerCase();
      const session = name.includes('login') || name.includes('sess');
      const antiCsrf = name.includes('csrf');
      if (c.sameSiteInvalid || (c.sameSite === 'none' && !c.secure)) note('cookies-samesite-flag-invalid', c);
      if (!c.secure)
        note(hsts ? 'cookies-without-secure-flag-but-protected-by-hsts' : 'cookies-without-secure-flag', c);
      if (antiCsrf && !c.sameSite) note('cookies-anticsrf-without-samesite-flag', c);
      if (session && !c.secure) {
        note(
          hsts
            ? 'cookies-session-without-secure-flag-but-protected-by-hsts'
            : 'cookies-session-without-secure-flag',
          c,
        );
      }
      if (session && !c.httpOnly) note('cookies-session-without-httponly-flag', c);
    }
    const evidence = {
      cookies: cookies.map((c) => ({
        name: c.name,
        secure: c.secure,
        httpOnly: c.httpOnly,
        sameSite: c.sameSite,
      })),
    };
    const worst = SEVERITY.filter((r) => findings.has(r)).pop();
    if (worst) return securityResult(worst, (findings.get(worst) ?? []).join(', '), evidence);
    const allSameSite = cookies.every((c) => c.sameSite !== null);
    return securityResult(
      allSameSite
        ? 'cookies-secure-with-httponly-sessions-and-samesite'
        : 'cookies-secure-with-httponly-sessions',
      undefined,
      evidence,
    );
  },
});
