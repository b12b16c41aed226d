import { z } from 'zod';
import { placeOrder } from '../../../shared/audits/orders.ts';
import { presentCreated } from '../../presenters/audit.ts';
import { AuditOrderBody, AuditOrderCreated } from '../../routes/audits/schema.ts';
import { defineTool } from '../tool.ts';

export default defineTool({
  name: 'place_audit_order',
  title: 'Order a full audit',
  description:
    'Orders an audit product (see list_audit_products) for a site: a crawl of the target with that ' +
    "product's checks on every page, delivered as a report. Returns the order (status paid) and the " +
    'estimated delivery time; poll it with get_audit_status. Same result as POST /api/v1/audit. ' +
    'Pro or Agent tier.',
  input: z.strictObject({
    ...AuditOrderBody.shape,
    idempotency_key: z
      .string()
      .regex(/^[\x21-\x7e][\x20-\x7e]{0,254}$/, 'must be 1-255 printable ASCII characters')
      .optional()
      .describe('Makes a retried call safe: the same key returns the first order (the REST Idempotency-Key)'),
  }),
  output: AuditOrderCreated,
  tiers: ['pro', 'agent'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ idempotency_key, ...order }, { services, principal }) {
    const placed = await placeOrder(services, principal, order, idempotency_key);
    const body = presentCreated(placed.order, services.config, placed.webhookSecret);
    return {
      structured: body,
      text:
        `${placed.replayed ? 'Order already placed with this idempotency key' : 'Order placed'}: ${body.order_id} ` +
        `(${body.product} for ${body.target_url}), status ${body.status}, estimated delivery within ` +
        `${body.estimated_delivery_minutes} minutes. Poll it with get_audit_status {"order_id": "${body.order_id}"}.`,
    };
  },
});
