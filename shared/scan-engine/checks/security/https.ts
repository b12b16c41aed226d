import { defineCheck } from '../../check.ts';
import { securityResult } from '../../security/result.ts';

export default defineCheck({
  meta: {
    id: 'https',
    title: 'Page is served over HTTPS',
    failureTitle: 'Page is not served over valid HTTPS',
    description:
      'Without HTTPS anyone on the network can read and change the page. Serve it over HTTPS with a certificate browsers trust.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    if (!Page.finalUrl.startsWith('https:')) return securityResult('https-not-implemented', Page.finalUrl);
    if (Page.tls && !Page.tls.authorized) return securityResult('https-invalid-cert');
    return securityResult('https-implemented', undefined, { protocol: Page.tls?.protocol ?? null });
  },
});
