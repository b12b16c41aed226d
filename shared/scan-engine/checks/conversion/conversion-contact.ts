import { defineCheck, fail, pass, warn } from '../../check.ts';
import {
  hasEmailInText,
  matchesBeforeDigitRun,
  phoneCountries,
  phonesInText,
} from '../../computed/contact.ts';
import { loadDocument } from '../../computed/document.ts';
import { isLinkOfKind } from '../content/lib/link-words.ts';
import { bodyText, collapse, collapsedText, htmlLang, isRealHref, listText } from '../content/lib/page.ts';
import { hasType, structuredData } from '../seo/lib/structured-data.ts';

// Ready buyers look for a way to reach a person. Any working path counts: an email or phone link,
// a link to a contact page (its words in 29 languages: content/lib/link-words.ts), a postal
// address, a contact form, or an email address or phone number written as plain text (phone
// numbers found by libphonenumber-js: computed/contact.ts). A "Contact" link that goes nowhere
// (href="#") is worse than useless: it looks like a path and is not.
// A number introduced as a phone number counts even when libphonenumber cannot place it.
const PHONE_AFTER_WORD =
  /(?:\btel|\btlf|phone|telefon|téléphone|teléfono|telefone|telefono|call|hotline|☎|📞)[^0-9+\n]{0,30}[+(]?\d[\d\s().-]{6,}\d/iu;
// From the start of the longest word (9 UTF-16 units) to the digit run: 30 characters of up to
// 2 units each and a + or (.
const PHONE_LEAD = 9 + 2 * 30 + 1;

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
        const href = a.attribs.href ?? '';
        if (/^(mailto|tel):/i.test(href)) return false;
        return isLinkOfKind('contact', collapsedText($, a), href);
      });
    if (contactLinks.some((a) => isRealHref(a.attribs.href))) found.push('contact page link');
    const data = structuredData($);
    if ($('address').length || hasType(data, ['PostalAddress', 'LocalBusiness', 'ContactPoint']))
      found.push('address');
    if ($('form textarea').length) found.push('contact form');
    const text = bodyText($);
    if (!found.includes('email link') && hasEmailInText(text)) found.push('email address');
    if (
      !found.includes('phone link') &&
      (matchesBeforeDigitRun(PHONE_AFTER_WORD, text, PHONE_LEAD) ||
        phonesInText(text, phoneCountries(htmlLang($), Page.finalUrl)).length > 0)
    )
      found.push('phone number');
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
