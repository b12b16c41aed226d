import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { Database } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { Mailer } from '../people/mail.ts';
import type { Services } from '../services.ts';
import { fulfilCheckout } from './fulfil-checkout.ts';
import { verifiedEvent } from './stripe-client.ts';
import { applySubscriptionEvent } from './subscriptions.ts';

// POST /webhooks/stripe: the event is verified over its exact bytes with the SDK, handled, then
// recorded by id. A replay (Stripe retries until it gets a 2xx) of a recorded event changes
// nothing; one that arrives while the first is still being handled finds the same orders (their
// idempotency keys come from the event id) and only the first to record the event sends its email.

export type WebhookOutcome = 'handled' | 'duplicate' | 'ignored';

export function verifyStripeWebhook(
  secret: string | undefined,
  rawBody: Buffer,
  signature: string | undefined,
): Stripe.Event {
  if (!secret) {
    // Not configured, the endpoint is not there for anyone to call (Stripe's retries included).
    throw new AppError(
      404,
      'webhook_not_configured',
      'Stripe webhook not configured',
      'STRIPE_WEBHOOK_SECRET is not set on this server, so Stripe events cannot be verified.',
    );
  }
  if (!signature) throw badSignature('The Stripe-Signature header is missing.');
  try {
    return verifiedEvent(secret, rawBody, signature);
  } catch (err) {
    throw badSignature((err as Error).message);
  }
}

const badSignature = (detail: string) =>
  new AppError(400, 'invalid_signature', 'Invalid signature', `Stripe webhook rejected: ${detail}`);

async function seen(db: Kysely<Database>, eventId: string): Promise<boolean> {
  const row = await db.selectFrom('stripe_events').select('id').where('id', '=', eventId).executeTakeFirst();
  return Boolean(row);
}

/** Records the event as handled; false when another delivery recorded it first. */
async function record(db: Kysely<Database>, event: Stripe.Event, accountId: string | null): Promise<boolean> {
  const row = await db
    .insertInto('stripe_events')
    .values({ id: event.id, type: event.type, account_id: accountId })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

export async function handleStripeEvent(
  services: Services,
  mailer: Mailer,
  event: Stripe.Event,
): Promise<WebhookOutcome> {
  if (await seen(services.db, event.id)) return 'duplicate';
  if (
    event.type === 'checkout.session.completed' ||
    event.type === 'checkout.session.async_payment_succeeded'
  ) {
    const { accountId, mail } = await fulfilCheckout(services, event, event.data.object);
    if (!(await record(services.db, event, accountId))) return 'duplicate';
    // The payment is fulfilled and recorded: a mail failure is the operator's to resend, not a retry.
    if (mail) {
      await mailer
        .send(mail)
        .catch((err: unknown) =>
          services.log.error({ err, event: event.id, to: mail.to }, 'checkout email could not be sent'),
        );
    }
    return 'handled';
  }
  const accountId = await applySubscriptionEvent(services, event);
  await record(services.db, event, accountId);
  return accountId ? 'handled' : 'ignored';
}
