import { defineCheck } from '../../check.ts';
import { securityResult } from '../../security/result.ts';
import { structuredToken } from '../../security/structured-field.ts';

const RESULTS: Record<string, string> = {
  'same-origin': 'coop-implemented-with-same-origin',
  'same-origin-allow-popups': 'coop-implemented-with-same-origin-allow-popups',
  'noopener-allow-popups': 'coop-implemented-with-noopener-allow-popups',
  'unsafe-none': 'coop-implemented-with-unsafe-none',
};

export default defineCheck({
  meta: {
    id: 'cross-origin-opener-policy',
    title: 'Cross-Origin-Opener-Policy isolates the page',
    failureTitle: 'Cross-Origin-Opener-Policy is invalid',
    description:
      'Cross-Origin-Opener-Policy: same-origin cuts the link between the page and cross-origin windows that open it or that it opens, protecting against cross-window attacks.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const header = Page.headers['cross-origin-opener-policy'];
    if (header === undefined || header.trim() === '') return securityResult('coop-not-implemented');
    // Structured-field syntax: a repeated header (joined with a comma) does not parse either.
    const token = structuredToken(header.slice(0, 1024));
    return securityResult((token && RESULTS[token]) || 'coop-header-invalid', undefined, {
      header: header.slice(0, 1024),
    });
  },
});
