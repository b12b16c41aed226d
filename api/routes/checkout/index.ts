import { bundleProducts } from '../../../shared/audits/bundles.ts';
import { listProducts } from '../../../shared/audits/products.ts';
import { CHECKOUT_CSP, renderCheckoutPage, renderUnknownBundlePage } from '../../pages/checkout.ts';
import { defineRoute } from '../../route.ts';
import { BundleParams } from './schema.ts';

// Where a recommendation's stripeLink leads when no payment link is configured: a page that says
// how to order the bundle's audits, so the link never dangles.
export default [
  defineRoute({
    method: 'get',
    path: '/checkout/:bundle',
    operationId: 'getCheckoutPage',
    summary: 'How to order a recommended bundle (HTML)',
    description:
      'The `stripeLink` of a recommendation when `STRIPE_LINK_COMPLETE` / `STRIPE_LINK_FOCUS` are not set: the bundle’s audits and how to order them through the API.',
    tags: ['Audits'],
    access: { kind: 'public' },
    request: { params: BundleParams },
    responses: {
      200: { description: 'The page', contentType: 'text/html' },
      404: { description: 'Unknown bundle: an HTML page saying so', contentType: 'text/html' },
    },
    async handler(ctx, { params }, services) {
      ctx.set('Content-Security-Policy', CHECKOUT_CSP);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = 'text/html; charset=utf-8';
      const ids = bundleProducts(params.bundle);
      if (!ids) {
        ctx.status = 404;
        ctx.body = renderUnknownBundlePage();
        return;
      }
      const catalogue = new Map((await listProducts(services.db)).map((p) => [p.id, p]));
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = renderCheckoutPage({
        bundleId: params.bundle,
        baseUrl: services.config.publicBaseUrl,
        products: ids.map((id) => ({
          id,
          name: catalogue.get(id)?.name ?? id,
          pricePence: catalogue.get(id)?.price_pence,
        })),
      });
    },
  }),
];
