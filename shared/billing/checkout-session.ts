import Stripe from 'stripe';
import { PLANS } from '../accounts/accounts.ts';
import { bundlePricePence } from '../audits/bundles.ts';
import { listProducts } from '../audits/products.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Services } from '../services.ts';
import { type Purchase, purchaseMetadata } from './purchases.ts';
import { stripeClient } from './stripe-client.ts';

// Opens a Stripe Checkout Session for a purchase through the SDK. Its line item is the price id
// configured for what is bought (STRIPE_PRICE_<BUNDLE, PRODUCT OR PLAN ID>) or, without one, an
// inline price of our own (a bundle's price, a product's catalogue price, a plan's monthly
// price), so a secret key alone is enough.

export const offline = () =>
  new AppError(
    503,
    'buying_offline',
    'Buying is offline',
    'Online payment is not set up on this server: its operator sets STRIPE_SECRET_KEY (docs/operations.md, "Stripe").',
  );

export interface SessionUrls {
  success: string;
  cancel: string;
}

async function lineItem(
  services: Pick<Services, 'config' | 'db'>,
  purchase: Purchase,
): Promise<Stripe.Checkout.SessionCreateParams.LineItem> {
  const { config } = services;
  const id =
    purchase.kind === 'plan'
      ? purchase.plan
      : purchase.kind === 'audit'
        ? purchase.product
        : purchase.bundleId;
  const price = config.stripePrices[id];
  if (price) return { price, quantity: 1 };
  if (purchase.kind === 'plan') {
    return {
      quantity: 1,
      price_data: {
        currency: config.STRIPE_CURRENCY,
        unit_amount: PLANS[purchase.plan].pricePence,
        recurring: { interval: 'month' },
        product_data: { name: `Sightline monitoring: ${purchase.plan} plan` },
      },
    };
  }
  const catalogue = await listProducts(services.db);
  if (purchase.kind === 'audit') {
    const product = catalogue.find((p) => p.id === purchase.product);
    if (!product) throw new AppError(400, 'unknown_product', 'Unknown product', 'No such audit product.');
    return {
      quantity: 1,
      price_data: {
        currency: config.STRIPE_CURRENCY,
        unit_amount: product.price_pence,
        product_data: { name: product.name, description: `For ${purchase.targetUrl}`.slice(0, 500) },
      },
    };
  }
  const prices = new Map(catalogue.map((p) => [p.id, p.price_pence]));
  return {
    quantity: 1,
    price_data: {
      currency: config.STRIPE_CURRENCY,
      unit_amount: bundlePricePence(purchase.bundleId, purchase.products, prices),
      product_data: {
        name: purchase.bundleId === 'complete_audit_bundle' ? 'Complete Audit Bundle' : 'Focus Audit Bundle',
        description: `${purchase.products.join(', ')} for ${purchase.targetUrl}`.slice(0, 500),
      },
    },
  };
}

/** Creates the session and returns its hosted page's URL (503 buying_offline without a key). */
export async function createCheckoutSession(
  services: Pick<Services, 'config' | 'db' | 'log'>,
  purchase: Purchase,
  opts: { email?: string; urls: SessionUrls },
): Promise<string> {
  const stripe = stripeClient(services.config);
  if (!stripe) throw offline();
  const metadata = purchaseMetadata(purchase);
  const params: Stripe.Checkout.SessionCreateParams = {
    mode: purchase.kind === 'plan' ? 'subscription' : 'payment',
    line_items: [await lineItem(services, purchase)],
    metadata,
    ...(purchase.kind === 'plan' ? { subscription_data: { metadata } } : {}),
    ...(opts.email ? { customer_email: opts.email } : {}),
    success_url: opts.urls.success,
    cancel_url: opts.urls.cancel,
  };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create(params);
  } catch (err) {
    if (!(err instanceof Stripe.errors.StripeError)) throw err;
    services.log.error({ err, purchase: metadata }, 'Stripe refused or did not answer a checkout session');
    throw new AppError(502, 'checkout_failed', 'Checkout failed', `Stripe: ${err.message}`);
  }
  if (!session.url) throw new AppError(502, 'checkout_failed', 'Checkout failed', 'Stripe returned no page.');
  services.log.info({ session: session.id, purchase: metadata }, 'checkout session created');
  return session.url;
}

/** Where the browser may be sent after the checkout form: Stripe's page, or the configured fake. */
export const checkoutOrigin = (config: Pick<Config, 'STRIPE_API_BASE'>) =>
  config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE).origin : 'https://checkout.stripe.com';
