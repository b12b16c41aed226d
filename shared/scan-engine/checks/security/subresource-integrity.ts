import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { securityResult } from '../../security/result.ts';
import { hostOf, registrableDomain } from '../../security/site.ts';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
// Observatory's ranking, best first; the worst finding across scripts is reported.
const RANK = [
  'sri-implemented-and-all-scripts-loaded-securely',
  'sri-implemented-and-external-scripts-loaded-securely',
  'sri-implemented-but-external-scripts-not-loaded-securely',
  'sri-not-implemented-but-external-scripts-loaded-securely',
  'sri-not-implemented-and-external-scripts-not-loaded-securely',
];

export default defineCheck({
  meta: {
    id: 'subresource-integrity',
    title: 'Third-party scripts load over HTTPS with Subresource Integrity',
    failureTitle: 'Third-party scripts load without Subresource Integrity or over insecure URLs',
    description:
      'A script from another site runs with full access to the page; if that site or CDN is compromised, so is this page. Load third-party scripts over https:// with an integrity="sha384-..." attribute.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const mime = (Page.contentType ?? Page.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (mime && !HTML_TYPES.has(mime)) return securityResult('sri-not-implemented-response-not-html');
    const $ = loadDocument(Page.html);
    const scripts = $('script');
    if (scripts.length === 0) return securityResult('sri-not-implemented-but-no-scripts-loaded');

    const site = registrableDomain(hostOf(Page.finalUrl) ?? '');
    const pageIsHttps = Page.finalUrl.startsWith('https:');
    let result: string | null = null;
    const worsen = (r: string) => {
      if (result === null || RANK.indexOf(r) > RANK.indexOf(result)) result = r;
    };
    const external: { src: string; integrity: boolean }[] = [];
    scripts.each((_, el) => {
      const src = $(el).attr('src')?.trim();
      if (!src) return;
      const integrity = Boolean($(el).attr('integrity')?.trim());
      const protocolRelative = /^\/\/[^/]/.test(src);
      const absolute = /^https?:\/\//i.test(src);
      const relative = !protocolRelative && !absolute;
      // Protocol-relative URLs count as foreign even on the same site, as Observatory rates them.
      const sameSite = !absolute || registrableDomain(hostOf(src) ?? '') === site;
      const trustedOrigin = relative || (sameSite && !protocolRelative);
      const secureScheme = absolute ? src.toLowerCase().startsWith('https:') : relative && pageIsHttps;
      if (trustedOrigin) {
        if (integrity && secureScheme && result === null)
          result = 'sri-implemented-and-all-scripts-loaded-securely';
        return;
      }
      external.push({ src: src.slice(0, 300), integrity });
      if (integrity && !secureScheme) worsen('sri-implemented-but-external-scripts-not-loaded-securely');
      else if (!integrity && secureScheme) worsen('sri-not-implemented-but-external-scripts-loaded-securely');
      else if (!integrity) worsen('sri-not-implemented-and-external-scripts-not-loaded-securely');
    });
    const final =
      result ??
      (external.length > 0
        ? 'sri-implemented-and-external-scripts-loaded-securely'
        : 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin');
    const offenders = external.filter((s) => !s.integrity || !s.src.toLowerCase().startsWith('https:'));
    return securityResult(
      final,
      offenders.length
        ? offenders
            .slice(0, 5)
            .map((s) => s.src)
            .join(', ')
        : undefined,
      {
        externalScripts: external.slice(0, 50),
      },
    );
  },
});
