import type { Config } from '../config.ts';

// Audit bundles offered by a scan's recommendation (decisions.md): aimed at the weakest
// dimensions. Prices are in pence. A bundle's stripeLink is this server's checkout page, which
// opens a Stripe Checkout Session (shared/billing/) or, with buying offline, says so; a payment
// link configured per bundle (STRIPE_LINK_*) is used instead when no Stripe secret key is set.

export const DIMENSION_PRODUCT: Record<string, string> = {
  seo: 'seo_audit',
  speed: 'speed_audit',
  security: 'security_audit',
  accessibility: 'accessibility_audit',
  mobile: 'mobile_audit',
  content: 'content_audit',
  conversion: 'conversion_audit',
};

export interface Recommendation {
  id: string;
  name: string;
  tagline: string;
  bundlePrice: number;
  stripeLink: string;
  products: string[];
}

/** Below this a dimension needs work; four or more such dimensions call for the complete bundle. */
const NEEDS_WORK = 70;
const COMPLETE_PRICE = 24_900; // all 7 products, about 27% under their sum
const FOCUS_DISCOUNT = 0.8; // 3 products for 80% of their sum

/** This server's checkout page of a bundle (GET /checkout/:bundle), for the scanned URL. */
export const checkoutPage = (config: Pick<Config, 'publicBaseUrl'>, bundleId: string, targetUrl?: string) =>
  `${config.publicBaseUrl}/checkout/${bundleId}${targetUrl ? `?target_url=${encodeURIComponent(targetUrl)}` : ''}`;

/** A bundle's price: the complete bundle's fixed price, a focus bundle 80% of its products' sum. */
export function bundlePricePence(bundleId: string, products: string[], prices: Map<string, number>): number {
  if (bundleId === 'complete_audit_bundle') return COMPLETE_PRICE;
  const sum = products.reduce((acc, p) => acc + (prices.get(p) ?? 0), 0);
  return Math.round((sum * FOCUS_DISCOUNT) / 100) * 100;
}

type LinkConfig = Pick<
  Config,
  'STRIPE_LINK_COMPLETE' | 'STRIPE_LINK_FOCUS' | 'STRIPE_SECRET_KEY' | 'publicBaseUrl'
>;

/** Checkout through the SDK when a secret key is set, else a configured payment link, else our page. */
function stripeLink(config: LinkConfig, bundleId: string, targetUrl: string | undefined): string {
  if (!config.STRIPE_SECRET_KEY) {
    if (bundleId === 'complete_audit_bundle' && config.STRIPE_LINK_COMPLETE)
      return config.STRIPE_LINK_COMPLETE;
    if (bundleId !== 'complete_audit_bundle' && config.STRIPE_LINK_FOCUS)
      return `${config.STRIPE_LINK_FOCUS}?bundle=${bundleId}`;
  }
  return checkoutPage(config, bundleId, targetUrl);
}

/** The audit products of a bundle id made by recommendBundle, or undefined for any other id. */
export function bundleProducts(bundleId: string): string[] | undefined {
  if (bundleId === 'complete_audit_bundle') return Object.values(DIMENSION_PRODUCT);
  const m = /^focus_bundle_([a-z]+)_([a-z]+)_([a-z]+)$/.exec(bundleId);
  if (!m) return undefined;
  const dims = m.slice(1);
  if (new Set(dims).size !== 3 || !dims.every((d) => DIMENSION_PRODUCT[d])) return undefined;
  return dims.map((d) => DIMENSION_PRODUCT[d]!);
}

export function recommendBundle(
  dimensions: { id: string; name: string; score: number | null }[],
  prices: Map<string, number>,
  config: LinkConfig,
  targetUrl?: string,
): Recommendation {
  const scored = dimensions.filter((d) => d.score !== null && DIMENSION_PRODUCT[d.id]) as {
    id: string;
    name: string;
    score: number;
  }[];
  const weak = scored.filter((d) => d.score < NEEDS_WORK);
  if (weak.length >= 4) {
    return {
      id: 'complete_audit_bundle',
      name: 'Complete Audit Bundle',
      tagline: `${weak.length} of 7 areas score under ${NEEDS_WORK}: audit all seven and fix them in one plan.`,
      bundlePrice: COMPLETE_PRICE,
      stripeLink: stripeLink(config, 'complete_audit_bundle', targetUrl),
      products: Object.values(DIMENSION_PRODUCT),
    };
  }
  const weakest = [...scored].sort((a, b) => a.score - b.score || a.id.localeCompare(b.id)).slice(0, 3);
  const products = weakest.map((d) => DIMENSION_PRODUCT[d.id]!);
  const id = `focus_bundle_${weakest.map((d) => d.id).join('_')}`;
  return {
    id,
    name: `Focus Bundle: ${weakest.map((d) => d.name).join(', ')}`,
    tagline: `Your weakest areas are ${weakest.map((d) => `${d.name} (${d.score})`).join(', ')}: audit these three first.`,
    bundlePrice: bundlePricePence(id, products, prices),
    stripeLink: stripeLink(config, id, targetUrl),
    products,
  };
}
