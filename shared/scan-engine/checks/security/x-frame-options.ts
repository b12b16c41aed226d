import { defineCheck } from '../../check.ts';
import { headerPolicies } from '../../security/csp.ts';
import { securityResult } from '../../security/result.ts';

export default defineCheck({
  meta: {
    id: 'x-frame-options',
    title: 'Other sites cannot frame the page',
    failureTitle: 'Other sites can frame the page (clickjacking)',
    description:
      "A page that any site can embed in a frame can be overlaid to trick clicks. Send Content-Security-Policy: frame-ancestors 'self' (or 'none'), and X-Frame-Options: DENY for old browsers.",
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const header = Page.headers['x-frame-options'];
    const evidence = { header: header?.slice(0, 1024) ?? null };
    // frame-ancestors replaces X-Frame-Options; it only counts in a header, never in a meta tag.
    if (headerPolicies(Page.headers)?.some((p) => p.directives.has('frame-ancestors'))) {
      return securityResult('x-frame-options-implemented-via-csp', undefined, evidence);
    }
    if (header === undefined) return securityResult('x-frame-options-not-implemented');
    const value = header.slice(0, 1024).trim().toLowerCase();
    if (value === 'deny' || value === 'sameorigin') {
      return securityResult('x-frame-options-sameorigin-or-deny', undefined, evidence);
    }
    if (value.startsWith('allow-from'))
      return securityResult('x-frame-options-allow-from-origin', undefined, evidence);
    return securityResult('x-frame-options-header-invalid', undefined, evidence);
  },
});
