import { defineCheck, graded } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { isLinkOfKind } from '../content/lib/link-words.ts';
import { collapsedText, isRealHref, listText } from '../content/lib/page.ts';
import { hasType, structuredData } from '../seo/lib/structured-data.ts';

// What makes a stranger trust a site enough to act (Baymard's checkout-trust and NN/g's
// credibility research): a secure connection, a reachable privacy policy (its link words in 29
// languages: content/lib/link-words.ts), what other customers
// say, and third-party proof (ratings markup, client logos, certifications). Weights reflect how
// much each moves a first-time visitor.
const SIGNALS = { https: 0.3, privacy: 0.2, socialProof: 0.3, thirdParty: 0.2 };
const TESTIMONIAL = /testimonial|review|quote|customer-stor|case-stud/i;
const SAYING =
  /what (our |people |customers |clients |users )*(are )?say|testimonials?|reviews?|loved by|trusted by/i;
const LOGOS =
  /(^|[\s_-])(logos?|clients|partners|customers|press|as-seen|trusted|badges?|certif\w*|awards?)([\s_-]|$)/i;

export default defineCheck({
  meta: {
    id: 'conversion-trust',
    title: 'Page shows trust signals',
    failureTitle: 'Page shows few trust signals',
    description:
      'Serve over HTTPS, link your privacy policy, and show proof from others: testimonials, ratings (with Review/AggregateRating markup), client logos or certifications.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const data = structuredData($);
    const has = {
      https: Page.finalUrl.startsWith('https://'),
      privacy: $('a[href]')
        .toArray()
        .some(
          (a) => isRealHref(a.attribs.href) && isLinkOfKind('privacy', collapsedText($, a), a.attribs.href),
        ),
      socialProof:
        $('[class], [id]')
          .toArray()
          .some((el) => TESTIMONIAL.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`)) ||
        $('blockquote').length > 0 ||
        $('h1, h2, h3, h4')
          .toArray()
          .some((h) => SAYING.test($(h).text())),
      thirdParty:
        hasType(data, ['Review', 'AggregateRating']) ||
        $('[class], [id]')
          .toArray()
          .some((el) => LOGOS.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`)) ||
        $('img')
          .toArray()
          .filter((img) => /logo/i.test(`${img.attribs.alt ?? ''} ${img.attribs.src ?? ''}`)).length >= 3,
    };
    const names = {
      https: 'HTTPS',
      privacy: 'privacy policy link',
      socialProof: 'testimonials or reviews',
      thirdParty: 'ratings, client logos or badges',
    };
    const keys = Object.keys(SIGNALS) as (keyof typeof SIGNALS)[];
    const score = keys.reduce((s, k) => s + (has[k] ? SIGNALS[k] : 0), 0);
    const present = keys.filter((k) => has[k]).map((k) => names[k]);
    const missing = keys.filter((k) => !has[k]).map((k) => names[k]);
    const evidence = { present, missing };
    if (missing.length === 0)
      return graded(score, `Page shows trust signals: ${listText(present)}`, evidence);
    return graded(
      score,
      `Page lacks trust signals: no ${missing.join('; no ')}${present.length ? ` (has ${listText(present)})` : ''}`,
      evidence,
    );
  },
});
