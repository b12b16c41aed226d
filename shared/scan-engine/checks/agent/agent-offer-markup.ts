import { defineCheck, fail, graded } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { bodyText } from '../content/lib/page.ts';
import { type JsonLdNode, structuredData, typesOf } from '../seo/lib/structured-data.ts';

// A price as a person reads it: a currency sign or code next to an amount.
const VISIBLE_PRICE = /(?:[$£€¥]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:USD|EUR|GBP|JPY)\b|\b(?:USD|EUR|GBP)\s?\d)/;

const has = (n: JsonLdNode, ...keys: string[]) =>
  keys.some((k) => n[k] !== undefined && n[k] !== null && n[k] !== '');

/** 0..1 for one offer: price and currency make it usable, availability makes it actionable. */
function completeness(offer: JsonLdNode): number {
  const price =
    has(offer, 'price', 'lowPrice') ||
    (typeof offer.priceSpecification === 'object' && offer.priceSpecification !== null);
  return (
    (price ? 0.45 : 0) + (has(offer, 'priceCurrency') ? 0.25 : 0) + (has(offer, 'availability') ? 0.3 : 0)
  );
}

export default defineCheck({
  meta: {
    id: 'agent-offer-markup',
    title: 'Offers are machine-readable',
    failureTitle: 'No machine-readable offers',
    description:
      'Shopping and booking agents read prices from schema.org Product/Offer markup, not from page text. Give each offer a price, priceCurrency and availability in JSON-LD.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const nodes = structuredData($).nodes;
    const offers = nodes.filter((n) => typesOf(n).some((t) => t === 'Offer' || t === 'AggregateOffer'));
    const products = nodes.filter((n) =>
      typesOf(n).some((t) => ['Product', 'Service', 'Event', 'SoftwareApplication'].includes(t)),
    );
    if (offers.length === 0) {
      const shown = VISIBLE_PRICE.test(bodyText($));
      const evidence = { offers: 0, products: products.length, visiblePrices: shown };
      if (products.length > 0)
        return graded(0.3, `${products.length} product(s) marked up without an Offer`, evidence);
      return fail(
        shown
          ? 'Prices are shown but not marked up as schema.org offers'
          : 'No schema.org offers on the page',
        evidence,
      );
    }
    const best = Math.max(...offers.map(completeness));
    const complete = offers.filter((o) => completeness(o) === 1).length;
    const evidence = { offers: offers.length, complete, products: products.length };
    return graded(
      best,
      `${complete} of ${offers.length} offers carry price, currency and availability`,
      evidence,
    );
  },
});
