import type { PageArtifact, ResourcesArtifact } from '../../shared/scan-engine/artifacts.ts';
import type { CheckResult } from '../../shared/scan-engine/check.ts';
import { securityChecks } from '../../shared/scan-engine/checks/security/index.ts';
import { type CheckRun, runCheck } from '../../shared/scan-engine/engine.ts';

// Page artifacts for security tests: an HTML page at https://mozilla.org/ (the site the
// Observatory vectors assume) with a valid certificate, no policy headers and no cookies.
export function makePage(over: Partial<PageArtifact> = {}): PageArtifact {
  const finalUrl = over.finalUrl ?? 'https://mozilla.org/';
  const https = finalUrl.startsWith('https:');
  return {
    requestedUrl: finalUrl,
    finalUrl,
    redirectChain: [],
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    setCookies: [],
    tls: https
      ? { protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256', validTo: null, authorized: true }
      : null,
    contentType: 'text/html; charset=utf-8',
    html: '<!doctype html><html><head><title>t</title></head><body></body></html>',
    truncated: false,
    timings: { ttfbMs: 1, totalMs: 2 },
    bytes: { transferred: 100, decoded: 100 },
    contentEncoding: null,
    httpRedirectsToHttps: https,
    ...over,
  };
}

/** The same page with extra response headers (names lower-cased, as the gatherer stores them). */
export const withHeaders = (
  headers: Record<string, string>,
  over: Partial<PageArtifact> = {},
): PageArtifact => makePage({ ...over, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });

export function runSecurity(id: string, page: PageArtifact, resources?: ResourcesArtifact): CheckRun {
  const check = securityChecks.find((c) => c.meta.id === id);
  if (!check) throw new Error(`no security check ${id}`);
  return runCheck(check, resources ? { Page: page, Resources: resources } : { Page: page });
}

/** The Observatory-style result id a run reported (undefined for not-applicable or errors). */
export const resultOf = (run: CheckRun): string | undefined =>
  (run as CheckResult).evidence?.result as string | undefined;
