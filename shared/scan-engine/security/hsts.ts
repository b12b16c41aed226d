import type { PageArtifact } from '../artifacts.ts';

// Observatory accepts 15552000 s (180 days) as "six months": many sites use it instead of 15768000.
export const HSTS_SIX_MONTHS = 15_552_000;

export interface HstsAnalysis {
  result: string;
  pass: boolean;
  maxAge: number | null;
  includeSubDomains: boolean;
  preload: boolean;
}

/** Strict-Transport-Security of the final response (it only counts when received over valid HTTPS). */
export function analyzeHsts(page: Pick<PageArtifact, 'finalUrl' | 'headers' | 'tls'>): HstsAnalysis {
  const out: HstsAnalysis = {
    result: 'hsts-not-implemented',
    pass: false,
    maxAge: null,
    includeSubDomains: false,
    preload: false,
  };
  if (!page.finalUrl.startsWith('https:')) return { ...out, result: 'hsts-not-implemented-no-https' };
  if (page.tls && !page.tls.authorized) return { ...out, result: 'hsts-invalid-cert' };
  const header = page.headers['strict-transport-security'];
  if (header === undefined) return out;

  const value = header.slice(0, 1024); // bounded against hostile headers
  // Repeated headers arrive joined by commas; browsers then ignore the policy.
  if (value.includes(',')) return { ...out, result: 'hsts-header-invalid' };
  for (const raw of value.split(';')) {
    const directive = raw.trim().toLowerCase();
    const maxAge = /^max-age\s*=\s*"?(\d+)"?$/.exec(directive);
    if (maxAge) out.maxAge = Number(maxAge[1]);
    else if (directive.startsWith('max-age')) return { ...out, result: 'hsts-header-invalid' };
    else if (directive === 'includesubdomains') out.includeSubDomains = true;
    else if (directive === 'preload') out.preload = true;
  }
  if (out.maxAge === null) return { ...out, result: 'hsts-header-invalid' };
  if (out.maxAge < HSTS_SIX_MONTHS)
    return { ...out, result: 'hsts-implemented-max-age-less-than-six-months' };
  return { ...out, result: 'hsts-implemented-max-age-at-least-six-months', pass: true };
}
