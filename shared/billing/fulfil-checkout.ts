import type Stripe from 'stripe';
import { setSubscription } from '../accounts/accounts.ts';
import { estimatedDeliveryMinutes, placeOrder, reportUrl } from '../audits/orders.ts';
import type { AuditOrder } from '../db/tables/audit-orders.ts';
import type { Mail } from '../people/mail.ts';
import type { Services } from '../services.ts';
import { type Buyer, findOrCreateBuyer } from './accounts.ts';
import { type AuditPurchase, purchasedProducts, purchaseFromMetadata } from './purchases.ts';
import { recordSubscription } from './subscriptions.ts';

// checkout.session.completed: the buyer's account (found or made by email), then what was paid
// for: one audit order per product of the bundle, or of the one product bought in the console
// (each with an idempotency key derived from the event, so a replay finds the same orders), or
// the monitoring plan. Returns the email to send.

export interface Fulfilled {
  accountId: string | null;
  mail: Mail | null;
}

const orderKey = (eventId: string, product: string) => `stripe:${eventId}:${product}`;

export async function fulfilCheckout(
  services: Services,
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
): Promise<Fulfilled> {
  const log = services.log.child({ event: event.id, session: session.id });
  const purchase = purchaseFromMetadata(session.metadata);
  if (!purchase) {
    log.warn('checkout completed without Sightline metadata (a payment link?): fulfil it by hand');
    return { accountId: null, mail: null };
  }
  if (session.payment_status === 'unpaid') {
    log.warn('checkout completed but not paid yet (delayed payment method): nothing placed');
    return { accountId: null, mail: null };
  }
  const email = session.customer_details?.email ?? session.customer_email;
  if (!email) {
    log.error({ purchase }, 'checkout completed without an email: nothing placed, fulfil it by hand');
    return { accountId: null, mail: null };
  }
  const buyer = await findOrCreateBuyer(services.db, email);
  if (buyer.variant !== 'A') {
    log.error(
      { account: buyer.accountId },
      'a variant B account paid for a variant A purchase: fulfil it by hand',
    );
    return { accountId: buyer.accountId, mail: null };
  }
  if (purchase.kind === 'plan') {
    const subscriptionId =
      typeof session.subscription === 'string' ? session.subscription : session.subscription?.id;
    await setSubscription(services.db, buyer.accountId, purchase.plan);
    if (subscriptionId)
      await recordSubscription(services.db, subscriptionId, buyer.accountId, purchase.plan, 'active');
    log.info({ account: buyer.accountId, plan: purchase.plan }, 'plan bought');
    return { accountId: buyer.accountId, mail: planMail(services, buyer, purchase.plan) };
  }
  const orders: AuditOrder[] = [];
  for (const product of purchasedProducts(purchase)) {
    const { order } = await placeOrder(
      services,
      { accountId: buyer.accountId, tier: 'pro' },
      { product, target_url: purchase.targetUrl },
      orderKey(event.id, product),
    );
    orders.push(order);
  }
  log.info(
    { account: buyer.accountId, orders: orders.map((o) => o.id) },
    purchase.kind === 'audit' ? 'audit bought' : 'audit bundle bought',
  );
  return { accountId: buyer.accountId, mail: bundleMail(services, buyer, purchase, orders) };
}

function keyLines(services: Services, buyer: Buyer): { text: string; logText: string } {
  const console = `${services.config.publicSiteUrl}/console`;
  if (!buyer.newKey) {
    const same = `Your existing Sightline account (${buyer.email}) has it: sign in at ${console} or use your API key.`;
    return { text: same, logText: same };
  }
  const intro = `A Sightline account was made for ${buyer.email}. Your API key (shown only here: keep it safe):`;
  return {
    text: `${intro}\n\n  ${buyer.newKey}\n\nUse it as "Authorization: Bearer <key>" (${services.config.docsUrl}).`,
    logText: `${intro}\n\n  (the key is in the email; it is never logged)`,
  };
}

function bundleMail(services: Services, buyer: Buyer, purchase: AuditPurchase, orders: AuditOrder[]): Mail {
  const keys = keyLines(services, buyer);
  const links = orders.map((o) => `- ${o.product}: ${reportUrl(services.config, o)}`).join('\n');
  const body = (keyText: string) =>
    `Thank you: your payment for the audits of ${purchase.targetUrl} went through.\n\n${keyText}\n\n` +
    `Your audit reports (each link opens its report once it is ready, within about ${estimatedDeliveryMinutes(services.config)} minutes):\n${links}\n`;
  return {
    to: buyer.email,
    subject: 'Your Sightline audits are on their way',
    text: body(keys.text),
    logText: body(keys.logText),
  };
}

function planMail(services: Services, buyer: Buyer, plan: string): Mail {
  const keys = keyLines(services, buyer);
  const body = (keyText: string) =>
    `Thank you: your Sightline ${plan} monitoring plan is active.\n\n${keyText}\n\n` +
    `Add the sites to watch in the console (${services.config.publicSiteUrl}/console) or with POST /api/v1/monitor.\n`;
  return {
    to: buyer.email,
    subject: `Your Sightline ${plan} plan is active`,
    text: body(keys.text),
    logText: body(keys.logText),
  };
}
