import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type Stripe from 'stripe';
import { setSubscription } from '../accounts/accounts.ts';
import type { Database } from '../db/database.ts';
import type { Plan } from '../db/tables/subscriptions.ts';
import type { Services } from '../services.ts';

// A Stripe subscription keeps its account's monitoring plan: active (or renewed: an invoice paid)
// sets the plan, cancelled, unpaid or a failed payment clears it. Events name the subscription;
// stripe_subscriptions maps it to the account and plan bought at checkout.

/** Statuses in which the plan is being paid for. */
const PAID = new Set(['active', 'trialing']);

export async function recordSubscription(
  db: Kysely<Database>,
  id: string,
  accountId: string,
  plan: Plan,
  status: string,
): Promise<void> {
  await db
    .insertInto('stripe_subscriptions')
    .values({ id, account_id: accountId, plan, status })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ account_id: accountId, plan, status, updated_at: sql<Date>`now()` }),
    )
    .execute();
}

/** The subscription an invoice bills (its place moved to `parent` in newer API versions). */
function invoiceSubscription(invoice: Stripe.Invoice): string | null {
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  const sub = invoice.parent?.subscription_details?.subscription ?? legacy ?? null;
  return typeof sub === 'string' ? sub : (sub?.id ?? null);
}

/** What a subscription event means for the plan: its subscription id and the status to apply. */
export function subscriptionChange(event: Stripe.Event): { id: string; status: string } | null {
  switch (event.type) {
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
      return { id: event.data.object.id, status: event.data.object.status };
    case 'customer.subscription.deleted':
      return { id: event.data.object.id, status: 'canceled' };
    case 'invoice.paid': {
      const id = invoiceSubscription(event.data.object);
      return id ? { id, status: 'active' } : null;
    }
    case 'invoice.payment_failed': {
      const id = invoiceSubscription(event.data.object);
      return id ? { id, status: 'payment_failed' } : null;
    }
    default:
      return null;
  }
}

/** Applies a subscription event; returns the account it changed, or null for a subscription not ours. */
export async function applySubscriptionEvent(
  services: Services,
  event: Stripe.Event,
): Promise<string | null> {
  const change = subscriptionChange(event);
  if (!change) return null;
  const known = await services.db
    .selectFrom('stripe_subscriptions')
    .select(['account_id', 'plan'])
    .where('id', '=', change.id)
    .executeTakeFirst();
  if (!known) {
    services.log.warn(
      { event: event.id, subscription: change.id },
      'event for a subscription not bought here: ignored',
    );
    return null;
  }
  const paid = PAID.has(change.status);
  await setSubscription(services.db, known.account_id, paid ? known.plan : 'none');
  await recordSubscription(services.db, change.id, known.account_id, known.plan, change.status);
  services.log.info(
    { event: event.id, type: event.type, account: known.account_id, plan: paid ? known.plan : 'none' },
    paid ? 'plan kept by its subscription' : 'plan cleared: its subscription is not paid',
  );
  return known.account_id;
}
