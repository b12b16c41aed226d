import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  getOrder,
  listOrders,
  orderDeliveries,
  ordersOnTier,
  placeOrder,
  reportUrl,
} from '../../../shared/audits/orders.ts';
import { listProducts, type ProductView } from '../../../shared/audits/products.ts';
import { checkoutOrigin, createCheckoutSession } from '../../../shared/billing/checkout-session.ts';
import { METADATA_VALUE_MAX } from '../../../shared/billing/purchases.ts';
import { buyingOnline } from '../../../shared/billing/stripe-client.ts';
import { AppError } from '../../../shared/errors.ts';
import { vetTargetUrl } from '../../../shared/scans/scans.ts';
import type { Services } from '../../../shared/services.ts';
import { accountWebhookSecret } from '../../../shared/webhooks/deliver.ts';
import { type AuditsView, type Buying, renderAudits, renderOrder } from '../audits-pages.ts';
import { pageCspPostingTo } from '../layout.ts';
import { definePage, type PageDef } from '../page.ts';
import { accountOf, formOf, html200, type PageKit, seeOther, viewerOf, type Web } from '../web.ts';

// Audits in the console (variant A): the catalogue and the account's orders, ordering, and one
// order followed to its report. An account whose tier orders audits (Pro, Agent) places the order
// through placeOrder, as POST /api/v1/audit does; any other pays for it through a Stripe Checkout
// Session, whose signed completion places the order (shared/billing/fulfil-checkout.ts). Without
// Stripe configured the page says that buying is offline.

const OrderParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

/** The form's one-use token, as the order's idempotency key: a form sent twice places one order. */
const FORM_TOKEN = /^[A-Za-z0-9_-]{22}$/;

/** The notices a redirect may name: fixed texts, so an address cannot put words on the page. */
const NOTICES: Record<string, NonNullable<AuditsView['notice']>> = {
  paid: {
    kind: 'ok',
    text: 'Payment received. Your order appears below as soon as Stripe confirms it, usually within seconds; the report links also arrive by email.',
  },
};

const buying = (services: Services, web: Web): Buying =>
  ordersOnTier(web.session!.tier) ? 'tier' : buyingOnline(services.config) ? 'stripe' : 'offline';

/** The audits page; when its form leads to Stripe, the CSP lets the form's redirect go there. */
async function auditsPage(
  services: Services,
  ctx: Context,
  web: Web,
  extra: Pick<AuditsView, 'notice' | 'form' | 'awaitingPayment'> = {},
  status = 200,
): Promise<void> {
  const { db, config } = services;
  const view: AuditsView = {
    products: await listProducts(db),
    orders: await listOrders(db, { accountId: accountOf(web), limit: 200 }),
    buying: buying(services, web),
    tier: web.session!.tier,
    formToken: randomBytes(16).toString('base64url'),
    ...extra,
  };
  html200(ctx, renderAudits(viewerOf(web), view), status);
  if (view.buying === 'stripe') ctx.set('Content-Security-Policy', pageCspPostingTo(checkoutOrigin(config)));
}

/** Opens a Checkout Session for one audit, paid with the signed-in address; returns its page. */
async function checkoutFor(services: Services, web: Web, product: ProductView, target: string) {
  const { config } = services;
  const vetted = (await vetTargetUrl(services, target, 'target_url')).href;
  if (vetted.length > METADATA_VALUE_MAX)
    throw new AppError(
      400,
      'invalid_url',
      'Invalid URL',
      `The address is longer than ${METADATA_VALUE_MAX} characters.`,
    );
  const back = `${config.publicBaseUrl}/console/audits`;
  return createCheckoutSession(
    services,
    { kind: 'audit', product: product.id, targetUrl: vetted },
    { email: viewerOf(web).email, urls: { success: `${back}?notice=paid`, cancel: back } },
  );
}

/** The order form: placed on the tier, sent to Stripe, or refused on the page with the reason. */
async function order(services: Services, ctx: Context, web: Web): Promise<void> {
  const { db } = services;
  const f = formOf(ctx);
  const form = { product: f.product, targetUrl: f.target_url, webhookUrl: f.webhook_url };
  const webhook = f.webhook_url?.trim() || undefined;
  const refuse = (error: string, status = 422, field = 'target_url') =>
    auditsPage(
      services,
      ctx,
      web,
      { form: { ...form, ...(field === 'webhook_url' ? { webhookError: error } : { error }) } },
      status,
    );
  const product = (await listProducts(db)).find((p) => p.id === f.product);
  if (!product) return refuse('Choose one of the audits above.');
  const target = (f.target_url ?? '').trim();
  if (!target) return refuse('Enter the address of the site to audit.');
  const how = buying(services, web);
  if (how === 'offline')
    return auditsPage(
      services,
      ctx,
      web,
      { form, notice: { kind: 'error', text: 'Buying is offline on this server: nothing was ordered.' } },
      503,
    );
  try {
    if (how === 'stripe') return seeOther(ctx, await checkoutFor(services, web, product, target));
    const token = FORM_TOKEN.test(f.form_token ?? '') ? `console:${f.form_token}` : undefined;
    const placed = await placeOrder(
      services,
      { accountId: accountOf(web), tier: web.session!.tier },
      { product: product.id, target_url: target, ...(webhook ? { webhook_url: webhook } : {}) },
      token,
    );
    seeOther(ctx, `/console/audits/${placed.order.id}`);
  } catch (err) {
    if (!(err instanceof AppError) || (err.status >= 500 && err.status !== 502)) throw err;
    if (err.code === 'idempotency_key_reused')
      return refuse(
        'This form was already used for another order. Check the order list below, then send the form again.',
        409,
      );
    const field = err.extra.errors?.[0]?.field?.endsWith('webhook_url') ? 'webhook_url' : 'target_url';
    await refuse(err.detail, err.status === 400 ? 422 : err.status, field);
  }
}

export function auditRoutes({ services, notFoundPage }: PageKit): PageDef[] {
  const { db, config } = services;
  return [
    definePage({
      method: 'get',
      path: '/console/audits',
      auth: 'A',
      handler: async (ctx, web) => {
        const named = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
        await auditsPage(services, ctx, web, { notice: named, awaitingPayment: named === NOTICES.paid });
      },
    }),
    definePage({
      method: 'post',
      path: '/console/audits',
      auth: 'A',
      handler: (ctx, web) => order(services, ctx, web),
    }),
    definePage({
      method: 'get',
      path: '/console/audits/:id',
      auth: 'A',
      params: OrderParams,
      handler: async (ctx, web) => {
        let found: Awaited<ReturnType<typeof getOrder>>;
        try {
          found = await getOrder(db, accountOf(web), ctx.params.id!); // another account's: 404
        } catch (err) {
          if (err instanceof AppError && err.status === 404) return notFoundPage(ctx, web);
          throw err;
        }
        const links =
          found.status === 'delivered'
            ? { html: reportUrl(config, found), json: reportUrl(config, found, 'json') }
            : null;
        const name = (await listProducts(db)).find((p) => p.id === found.product)?.name ?? found.product;
        const webhook = found.webhook_url
          ? {
              secret: await accountWebhookSecret(db, found.account_id),
              deliveries: await orderDeliveries(db, found.id),
            }
          : undefined;
        html200(
          ctx,
          renderOrder(viewerOf(web), found, { productName: name, links, nowMs: Date.now(), webhook }),
        );
      },
    }),
  ];
}
