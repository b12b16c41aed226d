import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { bodyText, collapse, isRealHref, listText } from '../content/lib/page.ts';
import { hasType, structuredData } from '../seo/lib/structured-data.ts';

// Ready buyers look for a way to reach a person. Any working path counts: an email or phone link,
// a link to a contact page, a postal address, or a phone number in the text. A "Contact" link that
// goes nowhere (href="#") is worse than useless: it looks like a path and is not.
// Matched against short link text ("Contact us") or the last path segment (/contact-us.html).
const CONTACT_TEXT = /^(contact|get in touch|kontakt|support|help ?desk|enquir|inquir)/i;
const CONTACT_PATH = /\/(contact|contact-us|kontakt|support|get-in-touch|enquir\w*|inquir\w*)(\.\w+)?\/?$/i;
const PHONE_IN_TEXT = /(?:tel|phone|call|hotline)[^0-9+\n]{0,30}[+(]?\d[\d\s().-]{6,}\d/i;

export default defineCheck({
  meta: {
    id: 'conversion-contact',
    title: 'Visitors can find a way to get in touch',
    failureTitle: 'No way to get in touch',
    description:
      'Link to a contact page from every page and show at least one direct channel: a clickable email address or phone number, or your address.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const found: string[] = [];
    if ($('a[href^="mailto:" i]').length) found.push('email link');
    if ($('a[href^="tel:" i]').length) found.push('phone link');
    const contactLinks = $('a[href]')
      .toArray()
      .filter((a) => {
        const text = collapse($(a).text());
        const href = (a.attribs.href ?? '').replace(/[?#].*$/, '');
        return (text.length <= 30 && CONTACT_TEXT.test(text)) || CONTACT_PATH.test(href);
      });
    if (contactLinks.some((a) => isRealHref(a.attribs.href))) found.push('contact page link');
    const data = structuredData($);
    if ($('address').length || hasType(data, ['PostalAddress', 'LocalBusiness', 'ContactPoint']))
      found.push('address');
    if ($('form textarea').length) found.push('contact form');
    if (!found.includes('phone link') && PHONE_IN_TEXT.test(bodyText($))) found.push('phone number');
    const evidence = {
      found,
      deadContactLinks: contactLinks.filter((a) => !isRealHref(a.attribs.href)).length,
    };
    if (found.length > 0) return pass(`Visitors can get in touch: ${listText(found)}`, evidence);
    if (evidence.deadContactLinks > 0) {
      const text = collapse($(contactLinks[0]).text());
      return warn(
        `"${text}" link goes nowhere (href="${contactLinks[0]?.attribs.href}") and there is no other way to get in touch`,
        0.3,
        evidence,
      );
    }
    return fail('No way to get in touch: no contact link, email, phone number or address', evidence);
  },
});
