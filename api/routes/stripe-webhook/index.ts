import type { IncomingMessage } from 'node:http';
import { handleStripeEvent, verifyStripeWebhook } from '../../../shared/billing/webhook.ts';
import { AppError } from '../../../shared/errors.ts';
import { createMailer, type Mailer } from '../../../shared/people/mail.ts';
import type { Services } from '../../../shared/services.ts';
import { ProblemSchema } from '../../openapi.ts';
import { defineRoute } from '../../route.ts';
import { StripeWebhookReceived } from './schema.ts';

// Stripe's events in (shared/billing/webhook.ts). The body is read here, unparsed: the signature
// covers its exact bytes.

const MAX_BYTES = 1024 * 1024;

const problem = (description: string) => ({
  description,
  schema: ProblemSchema,
  contentType: 'application/problem+json',
});

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BYTES) {
      throw new AppError(413, 'payload_too_large', 'Payload too large', 'A Stripe event is at most 1 MiB.');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const mailers = new WeakMap<Services, Mailer>();
function mailerOf(services: Services): Mailer {
  let mailer = mailers.get(services);
  if (!mailer) {
    mailer = createMailer(services.config, services.log);
    mailers.set(services, mailer);
  }
  return mailer;
}

export default [
  defineRoute({
    method: 'post',
    path: '/webhooks/stripe',
    operationId: 'receiveStripeWebhook',
    summary: 'Stripe events in (checkout completed, subscription changes)',
    description:
      'Called by Stripe, signed with the endpoint’s secret (STRIPE_WEBHOOK_SECRET) in the `Stripe-Signature` header. ' +
      '`checkout.session.completed` places the paid audit orders or sets the plan bought, for the account of the buyer’s email (made if new, its key emailed); ' +
      '`customer.subscription.updated` / `.deleted`, `invoice.paid` and `invoice.payment_failed` set or clear the plan. ' +
      'An event id already handled changes nothing.',
    tags: ['Billing'],
    access: { kind: 'public' },
    rawBody: true,
    responses: {
      200: { description: 'Received', schema: StripeWebhookReceived },
      400: problem('Missing or invalid Stripe-Signature'),
      413: problem('Body over 1 MiB'),
      404: problem('STRIPE_WEBHOOK_SECRET is not set: no Stripe webhook on this server'),
    },
    async handler(ctx, _input, services) {
      const raw = await readRaw(ctx.req);
      const event = verifyStripeWebhook(
        services.config.STRIPE_WEBHOOK_SECRET,
        raw,
        ctx.get('stripe-signature') || undefined,
      );
      const outcome = await handleStripeEvent(services, mailerOf(services), event);
      services.log.info({ event: event.id, type: event.type, outcome }, 'stripe event');
      ctx.body = { received: true, outcome };
    },
  }),
];
