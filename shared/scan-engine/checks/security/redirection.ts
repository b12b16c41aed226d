import { defineCheck, notApplicable } from '../../check.ts';
import { securityResult } from '../../security/result.ts';
import { hostOf } from '../../security/site.ts';

export default defineCheck({
  meta: {
    id: 'redirection',
    title: 'http:// redirects to https:// on the same host',
    failureTitle: 'http:// does not redirect properly to https://',
    description:
      'Visitors and links that use http:// should land on HTTPS at once. Redirect http:// to https:// on the same host first (so HSTS can be set), then anywhere else.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    if (Page.requestedUrl.startsWith('http:')) {
      // The scan itself started on http://, so the whole route is known.
      const route = [...Page.redirectChain.map((h) => h.url), Page.finalUrl];
      const evidence = { route };
      if (route.length === 1) return securityResult('redirection-missing', undefined, evidence);
      if (!route[route.length - 1]?.startsWith('https:'))
        return securityResult('redirection-not-to-https', undefined, evidence);
      if (route[1]?.startsWith('http:')) {
        return securityResult('redirection-not-to-https-on-initial-redirection', undefined, evidence);
      }
      if (Page.tls && !Page.tls.authorized)
        return securityResult('redirection-invalid-cert', undefined, evidence);
      if (hostOf(route[0] ?? '') !== hostOf(route[1] ?? '')) {
        return securityResult('redirection-off-host-from-http', undefined, evidence);
      }
      return securityResult('redirection-to-https', undefined, evidence);
    }
    // Started on https://: the gatherer probed http:// of the same host separately.
    if (Page.httpRedirectsToHttps === true) return securityResult('redirection-to-https');
    if (Page.httpRedirectsToHttps === false) return securityResult('redirection-missing');
    return notApplicable('Whether http:// redirects to https:// was not checked');
  },
});
