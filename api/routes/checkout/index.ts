import { PLANS } from '../../../shared/accounts/accounts.ts';
import { bundlePricePence, bundleProducts, checkoutPage } from '../../../shared/audits/bundles.ts';
import { listProducts } from '../../../shared/audits/products.ts';
import { checkoutOrigin, createCheckoutSession } from '../../../shared/billing/checkout-session.ts';
import { METADATA_VALUE_MAX } from '../../../shared/billing/purchases.ts';
import { buyingOnline } from '../../../shared/billing/stripe-client.ts';
import { AppError } from '../../../shared/errors.ts';
import { vetTargetUrl } from '../../../shared/scans/scans.ts';
import type { Services } from '../../../shared/services.ts';
import {
  type BundleView,
  checkoutCsp,
  type PlanView,
  renderBundlePage,
  renderCheckoutDone,
  renderPlanPage,
  renderUnknownBundlePage,
} from '../../pages/checkout.ts';
import { defineRoute, type RouteContext } from '../../route.ts';
import { formField } from './forms.ts';
import { BundleParams, BundleQuery, PlanParams, PlanQuery } from './schema.ts';

// The buy buttons' pages: a recommendation's stripeLink (a bundle of audits of the scanned site)
// and the console's plans. GET shows what is bought; its form POSTs here, which opens a Stripe
// Checkout Session (shared/billing/) and redirects to it. Buying offline, both say so plainly.

const HTML_PAGE = { description: 'The page', contentType: 'text/html' };

/** Each form post opens a session at Stripe with our key: counted per client address. */
const CHECKOUT_POSTS = { kind: 'ip', bucket: 'checkout', ipLimit: 30 } as const;

function htmlAnswer(ctx: RouteContext, services: Services, status: number, body: string): void {
  ctx.set('Content-Security-Policy', checkoutCsp(checkoutOrigin(services.config)));
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.status = status;
  ctx.body = body;
}

async function bundleView(services: Services, bundleId: string, products: string[], targetUrl?: string) {
  const catalogue = new Map((await listProducts(services.db)).map((p) => [p.id, p]));
  const prices = new Map([...catalogue.values()].map((p) => [p.id, p.price_pence]));
  return {
    bundleId,
    targetUrl,
    online: buyingOnline(services.config),
    pricePence: bundlePricePence(bundleId, products, prices),
    products: products.map((id) => ({
      id,
      name: catalogue.get(id)?.name ?? id,
      pricePence: catalogue.get(id)?.price_pence,
    })),
  } satisfies BundleView;
}

const planView = (services: Services, plan: 'growth' | 'agency', email: string | undefined): PlanView => ({
  plan,
  email,
  online: buyingOnline(services.config),
  pricePence: PLANS[plan].pricePence,
  sites: PLANS[plan].siteQuota,
  frequency: PLANS[plan].scanFrequency,
});

/**
 * Buying offline, the page says so (200, as GET). A problem with the form (a bad URL: 422) or at
 * Stripe (502) is shown on the page; other errors propagate.
 */
async function redirectToCheckout(
  ctx: RouteContext,
  services: Services,
  open: () => Promise<string>,
  errorPage: (error: string) => string,
): Promise<void> {
  if (!buyingOnline(services.config)) {
    htmlAnswer(ctx, services, 200, errorPage('Buying is offline on this server.'));
    return;
  }
  try {
    const url = await open();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect(url);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    htmlAnswer(ctx, services, err.status === 400 ? 422 : err.status, errorPage(err.detail));
  }
}

const bundleRoutes = [
  defineRoute({
    method: 'get',
    path: '/checkout/:bundle',
    operationId: 'getCheckoutPage',
    summary: 'Buy a recommended bundle (HTML)',
    description:
      'A recommendation’s `stripeLink`: the bundle’s audits and price and, with buying online (STRIPE_SECRET_KEY set), a form that opens a Stripe Checkout Session; offline, a notice saying so.',
    tags: ['Audits'],
    access: { kind: 'public' },
    request: { params: BundleParams, query: BundleQuery },
    responses: {
      200: HTML_PAGE,
      404: { description: 'Unknown bundle: an HTML page saying so', contentType: 'text/html' },
    },
    async handler(ctx, { params, query }, services) {
      const products = bundleProducts(params.bundle);
      if (!products) return htmlAnswer(ctx, services, 404, renderUnknownBundlePage());
      const view = await bundleView(services, params.bundle, products, query.target_url);
      htmlAnswer(ctx, services, 200, renderBundlePage(view));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/checkout/:bundle',
    operationId: 'startBundleCheckout',
    summary: 'Open a Stripe Checkout Session for a bundle (form post)',
    description:
      'The checkout page’s form (`target_url`, form-encoded): opens a Checkout Session for the bundle’s audits of that site and answers 303 to Stripe’s page. Errors are shown on the page.',
    tags: ['Audits'],
    access: CHECKOUT_POSTS,
    request: { params: BundleParams },
    responses: {
      200: { description: 'Buying is offline: the checkout page saying so', contentType: 'text/html' },
      303: { description: 'To the Stripe Checkout page' },
      404: { description: 'Unknown bundle', contentType: 'text/html' },
      422: { description: 'The checkout page naming the problem (a bad URL)', contentType: 'text/html' },
      502: { description: 'The checkout page: Stripe refused or did not answer', contentType: 'text/html' },
    },
    async handler(ctx, { params }, services) {
      const products = bundleProducts(params.bundle);
      if (!products) return htmlAnswer(ctx, services, 404, renderUnknownBundlePage());
      const input = formField(ctx, 'target_url');
      const view = await bundleView(services, params.bundle, products, input);
      await redirectToCheckout(
        ctx,
        services,
        async () => {
          if (!input)
            throw new AppError(400, 'invalid_url', 'Invalid URL', 'Enter the address of the site to audit.');
          const target = (await vetTargetUrl(services, input, 'target_url')).href;
          if (target.length > METADATA_VALUE_MAX) {
            throw new AppError(
              400,
              'invalid_url',
              'Invalid URL',
              `The address is longer than ${METADATA_VALUE_MAX} characters.`,
            );
          }
          return createCheckoutSession(
            services,
            { kind: 'bundle', bundleId: params.bundle, products, targetUrl: target },
            { urls: sessionUrls(services, checkoutPage(services.config, params.bundle, target)) },
          );
        },
        (error) => renderBundlePage({ ...view, error }),
      );
    },
  }),
];

const sessionUrls = (services: Services, cancel: string) => ({
  success: `${services.config.publicBaseUrl}/checkout/done`,
  cancel,
});

const planRoutes = [
  defineRoute({
    method: 'get',
    path: '/checkout/plan/:plan',
    operationId: 'getPlanCheckoutPage',
    summary: 'Buy a monitoring plan (HTML)',
    description:
      'The console’s buy button: the plan and, with buying online, a form that opens a Stripe Checkout Session (a monthly subscription); offline, a notice saying so.',
    tags: ['Monitoring'],
    access: { kind: 'public' },
    request: { params: PlanParams, query: PlanQuery },
    responses: { 200: HTML_PAGE },
    handler(ctx, { params, query }, services) {
      htmlAnswer(ctx, services, 200, renderPlanPage(planView(services, params.plan, query.email)));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/checkout/plan/:plan',
    operationId: 'startPlanCheckout',
    summary: 'Open a Stripe Checkout Session for a plan (form post)',
    description: 'The plan page’s form (optional `email`, form-encoded): answers 303 to Stripe’s page.',
    tags: ['Monitoring'],
    access: CHECKOUT_POSTS,
    request: { params: PlanParams },
    responses: {
      200: { description: 'Buying is offline: the plan page saying so', contentType: 'text/html' },
      303: { description: 'To the Stripe Checkout page' },
      502: { description: 'The plan page: Stripe refused or did not answer', contentType: 'text/html' },
    },
    async handler(ctx, { params }, services) {
      const email = formField(ctx, 'email');
      const view = planView(services, params.plan, email);
      const cancel = `${services.config.publicBaseUrl}/checkout/plan/${params.plan}${email ? `?email=${encodeURIComponent(email)}` : ''}`;
      await redirectToCheckout(
        ctx,
        services,
        () =>
          createCheckoutSession(
            services,
            { kind: 'plan', plan: params.plan },
            { email, urls: sessionUrls(services, cancel) },
          ),
        (error) => renderPlanPage({ ...view, error }),
      );
    },
  }),
];

export default [
  defineRoute({
    method: 'get',
    path: '/checkout/done',
    operationId: 'getCheckoutDone',
    summary: 'After a paid checkout (HTML)',
    description: 'Where Stripe sends the buyer back: what arrives by email next.',
    tags: ['Audits'],
    access: { kind: 'public' },
    responses: { 200: HTML_PAGE },
    handler(ctx, _input, services) {
      htmlAnswer(ctx, services, 200, renderCheckoutDone());
    },
  }),
  ...planRoutes,
  ...bundleRoutes,
];
