import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { collapsedText, isRealHref } from '../content/lib/page.ts';

// Where a transaction starts: pricing, plans, cart, checkout, sign-up, booking, ordering.
const ACTION =
  /\b(?:pricing|prices|plans|checkout|cart|basket|buy|shop|store|order|subscribe|sign[- ]?up|register|book(?:ing)?|reserve|donate|free[- ]trial|get[- ]started|request[- ]a[- ]quote)\b/i;

export default defineCheck({
  meta: {
    id: 'agent-commerce-links',
    title: 'Pricing, sign-up or checkout is one link away',
    failureTitle: 'No link to pricing, sign-up or checkout',
    description:
      'An agent acting for a user needs a plain link to where the transaction happens. Link pricing, sign-up, booking or checkout pages with real hrefs, not script-only buttons.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const found = new Map<string, string>();
    $('a[href]').each((_, el) => {
      const href = el.attribs.href ?? '';
      if (!isRealHref(href)) return;
      const text = collapsedText($, el) || (el.attribs['aria-label'] ?? '');
      const m = ACTION.exec(href.replace(/[/_?=&.-]+/g, ' ')) ?? ACTION.exec(text);
      if (m && !found.has(href)) found.set(href, m[0].toLowerCase());
    });
    const evidence = { links: [...found.entries()].slice(0, 8).map(([href, kind]) => ({ href, kind })) };
    if (found.size === 0) return fail('No link to pricing, sign-up, booking or checkout', evidence);
    const kinds = [...new Set(found.values())];
    return pass(`Links to ${kinds.slice(0, 4).join(', ')}`, evidence);
  },
});
