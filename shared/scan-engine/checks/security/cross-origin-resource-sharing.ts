import { defineCheck } from '../../check.ts';
import { CORS_PROBE_ORIGIN } from '../../security/cors-probe.ts';
import { securityResult } from '../../security/result.ts';

export default defineCheck({
  meta: {
    id: 'cross-origin-resource-sharing',
    title: 'Cross-origin access is not open to every site with credentials',
    failureTitle: 'Any site can read this page with the visitor’s credentials',
    description:
      'Reflecting any Origin into Access-Control-Allow-Origin while allowing credentials lets every website read what a signed-in visitor sees. Allow only known origins, or use * without credentials for public data.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const acao = Page.headers['access-control-allow-origin'];
    if (acao === undefined) return securityResult('cross-origin-resource-sharing-not-implemented');
    const origin = acao.slice(0, 256).trim();
    const credentials = Page.headers['access-control-allow-credentials']?.trim().toLowerCase() === 'true';
    const evidence = { allowOrigin: origin, allowCredentials: credentials };
    if (origin === '*')
      return securityResult(
        'cross-origin-resource-sharing-implemented-with-public-access',
        undefined,
        evidence,
      );
    if (origin === CORS_PROBE_ORIGIN && credentials) {
      return securityResult(
        'cross-origin-resource-sharing-implemented-with-universal-access',
        undefined,
        evidence,
      );
    }
    return securityResult(
      'cross-origin-resource-sharing-implemented-with-restricted-access',
      undefined,
      evidence,
    );
  },
});
