import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks (standardwebhooks.com) signing: HMAC-SHA256 over "<id>.<timestamp>.<body>"
// with the secret's bytes (base64 after the whsec_ prefix), sent as "v1,<base64 signature>".

const PREFIX = 'whsec_';

/** A new secret: 24 random bytes (the spec asks for 24 to 64), base64, with the whsec_ prefix. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('webhook secrets start with whsec_');
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}

/** The webhook-signature header value for one message. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** Every header a delivery carries besides Content-Type. */
export function webhookHeaders(
  secret: string,
  msg: { id: string; event: string; timestampSeconds: number; body: string },
): Record<string, string> {
  return {
    'webhook-id': msg.id,
    'webhook-timestamp': String(msg.timestampSeconds),
    'webhook-signature': signWebhook(secret, msg.id, msg.timestampSeconds, msg.body),
    'x-service-event': msg.event,
  };
}
