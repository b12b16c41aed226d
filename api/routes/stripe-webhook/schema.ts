import { z } from 'zod';

export const StripeWebhookReceived = z.object({
  received: z.literal(true),
  outcome: z
    .enum(['handled', 'duplicate', 'ignored'])
    .describe(
      'handled; duplicate: this event id was handled before, nothing changed; ignored: not an event Sightline acts on',
    ),
});
