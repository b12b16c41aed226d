import { defineCheck, fail, notApplicable, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { listText, resolveUrl } from '../content/lib/page.ts';

// Rules from Google's localized-versions guide and Lighthouse's hreflang audit: a valid language
// (optionally script and region) code or x-default, a fully qualified URL, one URL per code, and
// the page listing itself among its alternates.

const CODE = /^[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|\d{3}))?$/i;

function headerAlternates(link: string | undefined): { lang: string; href: string }[] {
  if (!link) return [];
  return link.split(/,(?=\s*<)/).flatMap((part) => {
    const href = /<([^>]*)>/.exec(part)?.[1];
    const lang = /;\s*hreflang="?([^";,\s]+)"?/i.exec(part)?.[1];
    return href && lang && /;\s*rel="?alternate"?/i.test(part) ? [{ lang, href }] : [];
  });
}

export default defineCheck({
  meta: {
    id: 'seo-hreflang',
    title: 'hreflang alternates are consistent',
    failureTitle: 'hreflang alternates are invalid',
    description:
      'hreflang links point search engines to the language versions of a page. Use valid codes (e.g. en-GB, x-default), absolute URLs, one URL per code, and include the page itself.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const alternates = [
      ...$('link[rel~="alternate" i][hreflang]')
        .map((_, el) => ({ lang: (el.attribs.hreflang ?? '').trim(), href: (el.attribs.href ?? '').trim() }))
        .get(),
      ...headerAlternates(Page.headers.link),
    ];
    if (alternates.length === 0) return notApplicable('Page declares no hreflang alternates');
    const problems: string[] = [];
    const badCodes = alternates
      .map((a) => a.lang)
      .filter((l) => l.toLowerCase() !== 'x-default' && (!CODE.test(l) || /-uk$/i.test(l)));
    if (badCodes.length)
      problems.push(
        `invalid language code${badCodes.length > 1 ? 's' : ''} ${listText(badCodes.map((c) => `"${c}"`))}`,
      );
    const relative = alternates.filter((a) => !/^https?:\/\//i.test(a.href));
    if (relative.length)
      problems.push(`${relative.length} relative or empty URL(s), e.g. "${relative[0]?.href}"`);
    const byCode = new Map<string, Set<string>>();
    for (const a of alternates)
      byCode.set(a.lang.toLowerCase(), (byCode.get(a.lang.toLowerCase()) ?? new Set()).add(a.href));
    const conflicting = [...byCode].filter(([, hrefs]) => hrefs.size > 1).map(([code]) => code);
    if (conflicting.length) problems.push(`several URLs for ${listText(conflicting)}`);
    const evidence = { alternates, problems };
    if (problems.length) return fail(`hreflang alternates are invalid: ${problems.join('; ')}`, evidence);
    const self = new URL(Page.finalUrl).href.replace(/#.*$/, '');
    if (!alternates.some((a) => resolveUrl(a.href, Page.finalUrl)?.href === self)) {
      return warn('hreflang alternates do not include this page itself', 0.7, evidence);
    }
    return pass(`hreflang alternates are consistent (${alternates.length} language versions)`, evidence);
  },
});
