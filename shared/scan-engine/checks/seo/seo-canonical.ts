import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { resolveUrl } from '../content/lib/page.ts';

// After Lighthouse's canonical audit: one canonical URL, valid, absolute-resolvable, on the same
// site, and not the site root for a deeper page (a common mistake that de-indexes the page).

function headerCanonicals(link: string | undefined): string[] {
  if (!link) return [];
  return link
    .split(/,(?=\s*<)/)
    .filter((part) => /;\s*rel="?canonical"?/i.test(part))
    .map((part) => /<([^>]*)>/.exec(part)?.[1] ?? '')
    .filter(Boolean);
}

export default defineCheck({
  meta: {
    id: 'seo-canonical',
    title: 'Page declares a valid canonical URL',
    failureTitle: 'Canonical URL is invalid',
    description:
      'A rel="canonical" link tells search engines which URL to index when the same content is reachable at several. Point it at the preferred URL of this page.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const hrefs = [
      ...$('link[rel~="canonical" i]')
        .map((_, el) => (el.attribs.href ?? '').trim())
        .get(),
      ...headerCanonicals(Page.headers.link),
    ];
    if (hrefs.length === 0) {
      return warn('No canonical URL is declared (<link rel="canonical">)', 0.6);
    }
    const urls = hrefs.map((h) => resolveUrl(h, Page.finalUrl));
    const invalid = hrefs.filter((h, i) => !h || !urls[i] || !/^https?:$/.test(urls[i]?.protocol ?? ''));
    if (invalid.length > 0) return fail(`Canonical URL is invalid: "${invalid[0]}"`, { canonicals: hrefs });
    const distinct = [...new Set(urls.map((u) => u?.href.replace(/#.*$/, '')))];
    if (distinct.length > 1) {
      return fail(`Page declares ${distinct.length} conflicting canonical URLs`, { canonicals: distinct });
    }
    const canonical = urls[0] as URL;
    const page = new URL(Page.finalUrl);
    const evidence = { canonical: canonical.href };
    if (canonical.hostname.replace(/^www\./, '') !== page.hostname.replace(/^www\./, '')) {
      return warn(`Canonical URL points to another site (${canonical.hostname})`, 0.5, evidence);
    }
    if (canonical.pathname === '/' && page.pathname !== '/' && !canonical.search) {
      return fail('Canonical URL points to the site root instead of this page', evidence);
    }
    if (canonical.protocol !== page.protocol && page.protocol === 'https:') {
      return warn('Canonical URL uses http:// while the page is served over https://', 0.7, evidence);
    }
    return pass(`Canonical URL is declared: ${canonical.href}`, evidence);
  },
});
