import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

// A loopback fake of the Stripe API endpoints Sightline's SDK calls, in Stripe's wire format:
// form-encoded requests with bracketed keys (line_items[0][price_data][currency]=gbp), JSON
// answers, errors as {"error": {...}}. It keeps every session it made, and builds the webhook
// events Stripe would send for them, signed with the SDK's own test-header helper.

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  mode: 'payment' | 'subscription';
  url: string;
  metadata: Record<string, string>;
  customer_email: string | null;
  success_url: string;
  cancel_url: string;
  /** The form as the SDK sent it, parsed (nested objects and arrays). */
  params: Record<string, unknown>;
  authorization: string;
}

export interface StripeFake {
  url: string; // http://127.0.0.1:<port>: STRIPE_API_BASE
  sessions: FakeSession[];
  /** checkout.session.completed for a session, as Stripe sends it (body and Stripe-Signature). */
  completed(session: FakeSession, email: string, secret: string): SignedEvent;
  /** A subscription event (customer.subscription.updated/deleted) for a subscription id. */
  subscriptionEvent(type: string, subscriptionId: string, status: string, secret: string): SignedEvent;
  /** invoice.paid / invoice.payment_failed for a subscription's invoice (API 2025+ shape: `parent`). */
  invoiceEvent(type: string, subscriptionId: string, secret: string): SignedEvent;
  close(): Promise<void>;
}

export interface SignedEvent {
  id: string;
  body: string;
  signature: string;
}

/** Parses Stripe's form encoding (a[b][0][c]=v) into nested objects (arrays for numeric keys). */
export function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node = root as Record<string, unknown>;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else {
        node[part] ??= /^\d+$/.test(parts[i + 1]!) ? [] : {};
        node = node[part] as Record<string, unknown>;
      }
    });
  }
  return root;
}

const sign = (payload: object, secret: string): SignedEvent => {
  const body = JSON.stringify(payload, null, 2);
  return {
    id: (payload as { id: string }).id,
    body,
    signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret }),
  };
};

const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

function event(type: string, object: object) {
  return {
    id: newId('evt'),
    object: 'event',
    api_version: '2026-01-28.clover',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  };
}

export async function startStripeFake(): Promise<StripeFake> {
  const sessions: FakeSession[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const answer = (status: number, json: object) =>
        res
          .writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') })
          .end(JSON.stringify(json));
      // The hosted page: a browser walking the flow is sent straight back, as after paying.
      const paying = sessions.find((x) => req.method === 'GET' && req.url === new URL(x.url).pathname);
      if (paying) return res.writeHead(303, { location: paying.success_url }).end();
      if (req.method !== 'POST' || req.url !== '/v1/checkout/sessions') {
        return answer(404, {
          error: {
            type: 'invalid_request_error',
            message: `Unrecognized request URL (${req.method}: ${req.url})`,
          },
        });
      }
      if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        return answer(400, { error: { type: 'invalid_request_error', message: 'form encoding expected' } });
      }
      const params = parseStripeForm(body);
      if (!params.success_url || !params.line_items || !params.mode) {
        return answer(400, { error: { type: 'invalid_request_error', message: 'Missing required param.' } });
      }
      const id = newId('cs');
      const session: FakeSession = {
        id,
        object: 'checkout.session',
        mode: params.mode as FakeSession['mode'],
        url: `${base}/c/pay/${id}`,
        metadata: (params.metadata ?? {}) as Record<string, string>,
        customer_email: (params.customer_email as string | undefined) ?? null,
        success_url: params.success_url as string,
        cancel_url: params.cancel_url as string,
        params,
        authorization: req.headers.authorization ?? '',
      };
      sessions.push(session);
      const { params: _p, authorization: _a, ...wire } = session;
      answer(200, { ...wire, status: 'open', payment_status: 'unpaid', livemode: false });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    sessions,
    completed(session, email, secret) {
      const { params: _p, authorization: _a, ...wire } = session;
      return sign(
        event('checkout.session.completed', {
          ...wire,
          status: 'complete',
          payment_status: 'paid',
          customer_details: { email, name: null },
          subscription: session.mode === 'subscription' ? `sub_for_${session.id}` : null,
        }),
        secret,
      );
    },
    subscriptionEvent(type, subscriptionId, status, secret) {
      return sign(event(type, { id: subscriptionId, object: 'subscription', status, metadata: {} }), secret);
    },
    invoiceEvent(type, subscriptionId, secret) {
      return sign(
        event(type, {
          id: newId('in'),
          object: 'invoice',
          status: type === 'invoice.paid' ? 'paid' : 'open',
          parent: {
            type: 'subscription_details',
            subscription_details: { subscription: subscriptionId, metadata: {} },
          },
        }),
        secret,
      );
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
