import Stripe from 'stripe';
import type { Config } from '../config.ts';

// The one Stripe SDK client of a process, built from configuration. Buying is online when
// STRIPE_SECRET_KEY is set; STRIPE_API_BASE sends the SDK's calls to another host (a loopback fake
// in tests), with the SDK's own host/port/protocol options.

export type StripeConfig = Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_BASE'>;

const clients = new Map<string, Stripe>();

export const buyingOnline = (config: StripeConfig): boolean => Boolean(config.STRIPE_SECRET_KEY);

/** The SDK client, or null when STRIPE_SECRET_KEY is not set. */
export function stripeClient(config: StripeConfig): Stripe | null {
  const key = config.STRIPE_SECRET_KEY;
  if (!key) return null;
  const cacheKey = `${key}\n${config.STRIPE_API_BASE ?? ''}`;
  let client = clients.get(cacheKey);
  if (!client) {
    const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : undefined;
    client = new Stripe(key, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      appInfo: { name: 'Sightline' },
      ...(base
        ? {
            host: base.hostname,
            port: base.port || (base.protocol === 'http:' ? 80 : 443),
            protocol: base.protocol === 'http:' ? 'http' : 'https',
          }
        : {}),
    });
    clients.set(cacheKey, client);
  }
  return client;
}

/** Verifies a webhook's Stripe-Signature over its exact bytes and parses the event (throws if bad). */
export function verifiedEvent(secret: string, rawBody: Buffer, signature: string): Stripe.Event {
  // constructEvent needs no API key; any client's webhooks helper verifies the same way.
  return Stripe.webhooks.constructEvent(rawBody, signature, secret);
}
