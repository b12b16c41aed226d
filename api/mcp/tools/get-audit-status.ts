import { z } from 'zod';
import { getOrder } from '../../../shared/audits/orders.ts';
import { presentOrder } from '../../presenters/audit.ts';
import { AuditOrder, OrderIdParams } from '../../routes/audits/schema.ts';
import { defineTool } from '../tool.ts';

export default defineTool({
  name: 'get_audit_status',
  title: 'Poll an audit order',
  description:
    "Returns one of this account's audit orders: status paid, generating, delivered (with delivered_at, " +
    'report_summary and report_url) or failed (with error). Same result as GET /api/v1/audit/{order_id}. Any tier.',
  input: z.strictObject(OrderIdParams.shape),
  output: AuditOrder,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ order_id }, { services, principal }) {
    const body = presentOrder(await getOrder(services.db, principal.accountId, order_id), services.config);
    const what = `Order ${body.order_id} (${body.product} for ${body.target_url})`;
    const text =
      body.status === 'delivered'
        ? `${what} was delivered at ${body.delivered_at}: ${body.report_summary} Report: ${body.report_url}`
        : body.status === 'failed'
          ? `${what} failed: ${body.error?.message ?? 'no reason recorded'}.`
          : `${what} is ${body.status}; poll again in a minute.`;
    return { structured: body, text };
  },
});
