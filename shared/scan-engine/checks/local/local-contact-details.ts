import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { bodyText } from '../content/lib/page.ts';
import { visibleAddress, visiblePhone } from './lib/local.ts';

// Name, address and phone visible on the page itself: what a local customer looks for, and what
// search engines compare with the business's listings.
export default defineCheck({
  meta: {
    id: 'local-contact-details',
    title: 'Page shows a phone number and address',
    failureTitle: 'Page shows no phone number or address',
    description:
      'Show your phone number (as a tel: link) and postal address in the page text, for example in the footer inside an <address> element.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const text = bodyText($);
    const phone = visiblePhone($, text, Page.finalUrl);
    const address = visibleAddress($, text);
    const evidence = { phone, address };
    if (phone && address) return pass('Page shows a phone number and a postal address', evidence);
    if (phone) return warn('Page shows a phone number but no postal address', 0.5, evidence);
    if (address) return warn('Page shows an address but no phone number', 0.5, evidence);
    return fail('Page shows neither a phone number nor a postal address', evidence);
  },
});
