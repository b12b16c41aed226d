import { z } from 'zod';
import { SUBSCRIBABLE_EVENTS } from '../../../shared/webhooks/endpoints.ts';

// B webhook endpoints (/api/v1/webhooks). interface.md leaves the record unshown; it mirrors the
// request's snake_case fields, with ISO 8601 timestamps.

const level = z.number().int().min(1).max(100);
export const Threshold = z
  .object({
    overall: level.optional(),
    structure: level.optional(),
    citability: level.optional(),
    discoverability: level.optional(),
    agent_interface: level.optional(),
    transactability: level.optional(),
  })
  .strict()
  .refine((t) => Object.keys(t).length > 0, 'name at least one of overall or a dimension id')
  .describe(
    'Scores (1-100) that alert when a weekly scan crosses them: `overall` and/or dimension ids. Below the line: score_drop (overall) or dimension_drop; back at or above it: recovered.',
  )
  .meta({ id: 'WebhookThreshold', minProperties: 1 });

const events = z
  .array(z.enum(SUBSCRIBABLE_EVENTS))
  .min(1)
  .describe('Events to receive; monitoring.alert is the one kind (webhook.test is sent on request)');
const siteIds = z
  .union([z.array(z.number().int().positive()).max(1000), z.literal('all'), z.null()])
  .transform((v) => (v === 'all' ? null : v))
  .describe(
    'Registered site ids to alert on; "all", null or omitted for every site of the account (listed as null)',
  );

export const CreateWebhookBody = z
  .object({
    url: z.string().min(1).max(2048).describe('http(s) URL; must pass the scan address policy'),
    events: events.optional(),
    site_ids: siteIds.optional(),
    threshold: Threshold.optional().describe('Default {"overall": 50}'),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'CreateWebhookRequest' });

export const UpdateWebhookBody = z
  .object({
    url: z.string().min(1).max(2048).optional(),
    events: events.optional(),
    site_ids: siteIds.optional(),
    threshold: Threshold.optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'UpdateWebhookRequest' });

export const WebhookParams = z.object({
  id: z.string().regex(/^\d{1,18}$/, 'a numeric webhook id'),
});

const iso = z.string().describe('ISO 8601 timestamp');

export const Webhook = z
  .object({
    id: z.number().int(),
    url: z.string(),
    events: z.array(z.string()),
    site_ids: z.array(z.number().int()).nullable(),
    threshold: z.record(z.string(), z.number().int()),
    enabled: z.boolean(),
    created_at: iso,
    updated_at: iso,
  })
  .meta({ id: 'Webhook' });

export const WebhookWithSecret = Webhook.extend({
  secret: z
    .string()
    .describe('whsec_ signing secret (Standard Webhooks); shown on creation and rotation only'),
}).meta({ id: 'WebhookWithSecret' });

export const WebhookList = z.object({ webhooks: z.array(Webhook) }).meta({ id: 'WebhookList' });

export const Delivery = z
  .object({
    id: z.string().describe('The webhook-id header of the attempt'),
    event: z.string(),
    url: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    status_code: z.number().int().nullable().describe('HTTP status the receiver answered'),
    duration_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    created_at: iso,
    finished_at: iso.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const TestDelivery = Delivery.omit({ finished_at: true }).meta({ id: 'WebhookTestDelivery' });

export const DeliveryList = z.object({ deliveries: z.array(Delivery) }).meta({ id: 'WebhookDeliveryList' });

export const DeliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
