import { defineCheck, fail, graded } from '../../scan-engine/check.ts';

export default defineCheck({
  meta: {
    id: 'geo-https',
    title: 'Site is served securely over HTTPS',
    failureTitle: 'Site is not served securely over HTTPS',
    description:
      'Answer engines and their users favour secure sources, and several agents refuse plain HTTP. Serve every page over HTTPS with a valid certificate, redirect http:// to https:// and send HSTS.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const https = Page.finalUrl.startsWith('https://');
    const hsts = /max-age=\d+/i.test(Page.headers['strict-transport-security'] ?? '');
    const evidence = {
      finalUrl: Page.finalUrl,
      certificateValid: Page.tls?.authorized ?? null,
      httpRedirectsToHttps: Page.httpRedirectsToHttps,
      hsts,
    };
    if (!https)
      return fail('The page is served over plain HTTP', { ...evidence, fix: 'Serve the site over HTTPS' });
    if (Page.tls && !Page.tls.authorized) {
      return fail('HTTPS certificate is not trusted', {
        ...evidence,
        fix: 'Install a certificate from a trusted CA',
      });
    }
    // Not checked (null): HSTS makes browsers upgrade anyway, so only its absence costs.
    const redirect =
      Page.httpRedirectsToHttps === true ? 1 : Page.httpRedirectsToHttps === null ? (hsts ? 1 : 0.5) : 0;
    const score = 0.6 + 0.25 * redirect + 0.15 * (hsts ? 1 : 0);
    const gaps = [
      Page.httpRedirectsToHttps === false && 'http:// does not redirect to https://',
      !hsts && 'no HSTS header',
    ].filter((g): g is string => typeof g === 'string');
    return graded(score, gaps.length ? `HTTPS, but ${gaps.join(' and ')}` : 'HTTPS with redirect and HSTS', {
      ...evidence,
      fix: gaps.length ? `Fix: ${gaps.join('; ')}` : undefined,
    });
  },
});
