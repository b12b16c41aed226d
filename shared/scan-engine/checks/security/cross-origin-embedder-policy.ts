import { defineCheck } from '../../check.ts';
import { securityResult } from '../../security/result.ts';
import { structuredToken } from '../../security/structured-field.ts';

const RESULTS: Record<string, string> = {
  'require-corp': 'coep-implemented-with-require-corp',
  credentialless: 'coep-implemented-with-credentialless',
  'unsafe-none': 'coep-implemented-with-unsafe-none',
};

export default defineCheck({
  meta: {
    id: 'cross-origin-embedder-policy',
    title: 'Cross-Origin-Embedder-Policy controls cross-origin subresources',
    failureTitle: 'Cross-Origin-Embedder-Policy is invalid',
    description:
      'Cross-Origin-Embedder-Policy: require-corp (or credentialless) only loads cross-origin resources that opt in or carry no credentials; with COOP it enables cross-origin isolation.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const header = Page.headers['cross-origin-embedder-policy'];
    if (header === undefined || header.trim() === '') return securityResult('coep-not-implemented');
    const token = structuredToken(header.slice(0, 1024));
    return securityResult((token && RESULTS[token]) || 'coep-header-invalid', undefined, {
      header: header.slice(0, 1024),
    });
  },
});
