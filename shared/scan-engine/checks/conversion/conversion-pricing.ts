import { defineCheck, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { bodyText, collapse, collapsedText, isRealHref, listText } from '../content/lib/page.ts';
import { hasType, structuredData } from '../seo/lib/structured-data.ts';

// Hidden prices are a top reason visitors leave (Baymard: unexpected costs lead checkout
// abandonment; NN/g: users want prices before they engage). Any of these counts: prices in the
// text, Offer markup with a price, or a link to a pricing page. Not every site sells, so a page
// without prices only warns.
const PRICE =
  /[$£€¥₹]\s?\d|\d(?:[.,]\d{2})?\s?(?:[€£]|USD|EUR|GBP)\b|\b(?:per|\/)\s?(?:month|mo|year|yr|user|seat)\b|\bfree plan\b/i;
const PRICING_LINK = /pricing|prices|plans|tarif|preise|packages/i;

export default defineCheck({
  meta: {
    id: 'conversion-pricing',
    title: 'Prices are easy to find',
    failureTitle: 'No pricing information',
    description:
      'Show prices (or at least "from" prices) on the page or link a pricing page from the main navigation.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const found: string[] = [];
    const price = PRICE.exec(bodyText($));
    if (price) found.push(`prices in the text ("${price[0].trim()}")`);
    const data = structuredData($);
    if (hasType(data, ['Offer', 'AggregateOffer', 'PriceSpecification', 'UnitPriceSpecification']))
      found.push('Offer markup');
    const link = $('a[href]')
      .toArray()
      .find(
        (a) => isRealHref(a.attribs.href) && PRICING_LINK.test(`${collapsedText($, a)} ${a.attribs.href}`),
      );
    if (link) found.push(`a link to "${collapse($(link).text()) || link.attribs.href}"`);
    if (found.length > 0) return pass(`Pricing is visible: ${listText(found)}`, { found });
    return warn('No pricing information or pricing page link found', 0.4, { found });
  },
});
