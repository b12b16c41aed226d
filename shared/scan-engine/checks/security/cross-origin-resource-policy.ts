import { defineCheck } from '../../check.ts';
import { securityResult } from '../../security/result.ts';

const RESULTS: Record<string, string> = {
  'same-origin': 'corp-implemented-with-same-origin',
  'same-site': 'corp-implemented-with-same-site',
  'cross-origin': 'corp-implemented-with-cross-origin',
};

export default defineCheck({
  meta: {
    id: 'cross-origin-resource-policy',
    title: 'Cross-Origin-Resource-Policy limits who may embed the response',
    failureTitle: 'Cross-Origin-Resource-Policy is invalid',
    description:
      'Cross-Origin-Resource-Policy: same-origin (or same-site) stops other sites loading the response into their pages, which blocks some side-channel leaks.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const header = Page.headers['cross-origin-resource-policy'];
    if (header === undefined || header.trim() === '') return securityResult('corp-not-implemented');
    const value = header.slice(0, 256).trim().toLowerCase();
    return securityResult(RESULTS[value] ?? 'corp-header-invalid', undefined, {
      header: header.slice(0, 256),
    });
  },
});
