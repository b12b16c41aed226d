import {
  AUDIT_ORDER_TIERS,
  getOrder,
  orderForOwnerReport,
  orderForReport,
  placeOrder,
} from '../../../shared/audits/orders.ts';
import type { AuditReport as Report } from '../../../shared/audits/report.ts';
import { renderReportHtml } from '../../../shared/audits/report-html.ts';
import { badRequest, unauthorized } from '../../../shared/errors.ts';
import type { Services } from '../../../shared/services.ts';
import { ProblemSchema } from '../../openapi.ts';
import { presentCreated, presentOrder } from '../../presenters/audit.ts';
import type { Access } from '../../route.ts';
import { defineRoute, type RouteContext } from '../../route.ts';
import {
  AuditOrder,
  AuditOrderBody,
  AuditOrderCreated,
  AuditReport,
  locationHeader,
  OrderIdParams,
  ReportQuery,
} from './schema.ts';

// Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): any printable ASCII, bounded.
const IDEMPOTENCY_KEY = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

function idempotencyKey(ctx: RouteContext): string | undefined {
  const value = ctx.get('idempotency-key');
  if (!value) return undefined;
  if (!IDEMPOTENCY_KEY.test(value)) {
    const message = 'must be 1-255 printable ASCII characters';
    throw badRequest(`header.Idempotency-Key: ${message}`, [{ field: 'header.Idempotency-Key', message }]);
  }
  return value;
}

/**
 * A report is reached with its token (the shareable report_url) or, without one, with a key of
 * the account that ordered it. Both count in the polling bucket, per key or per address.
 */
const reportAccess: Access = { kind: 'optional-key', bucket: 'poll', limit: (c) => c.RATE_LIMIT_POLL };

async function reportOrder(
  ctx: RouteContext,
  services: Services,
  orderId: string,
  token: string | undefined,
) {
  if (token) return orderForReport(services.db, orderId, token);
  const principal = ctx.state.principal;
  if (!principal)
    throw unauthorized("Send the report's token (as in report_url) or a key of the account that ordered it.");
  return orderForOwnerReport(services.db, principal.accountId, orderId);
}

// The report embeds text from the audited site: no script may run, nothing may be fetched, and
// the token in its URL must not leak through a Referer when someone follows a link out of it.
function reportHeaders(ctx: RouteContext) {
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Robots-Tag', 'noindex, nofollow');
  ctx.set('Cache-Control', 'private, max-age=300');
  ctx.set('Vary', 'Accept');
}

const replayedHeader = {
  'Idempotent-Replayed': {
    description: 'true when an earlier order with this Idempotency-Key is returned',
    schema: { type: 'string' },
  },
};

export default [
  defineRoute({
    method: 'post',
    path: '/api/v1/audit',
    operationId: 'placeAuditOrder',
    summary: 'Order an audit of a site (variant A, Pro and Agent tiers; webhook_url Agent only)',
    description:
      "Creates the order `paid` and queues its report: a crawl of the target with the product's checks on every page. Poll the Location (or give `webhook_url`) until `delivered`. Send an `Idempotency-Key` header (1-255 printable ASCII) to make retries safe: the same key returns the same order; reused with a different body it is 422. A key lives `IDEMPOTENCY_KEY_TTL_HOURS` (default 24) from its order's creation; after that it places a new order.",
    tags: ['Audits'],
    access: { kind: 'key', variants: ['A'], tiers: [...AUDIT_ORDER_TIERS] },
    request: { body: AuditOrderBody },
    responses: {
      201: {
        description: 'Order placed (or replayed)',
        schema: AuditOrderCreated,
        headers: { ...locationHeader, ...replayedHeader },
      },
      422: {
        description: 'Idempotency-Key already used for a different order',
        schema: ProblemSchema,
        contentType: 'application/problem+json',
      },
    },
    async handler(ctx, { body }, services) {
      const key = idempotencyKey(ctx);
      const { order, replayed, webhookSecret } = await placeOrder(services, ctx.state.principal!, body, key);
      ctx.status = 201;
      ctx.set('Location', `/api/v1/audit/${order.id}`);
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.body = presentCreated(order, services.config, webhookSecret);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/audit/:order_id',
    operationId: 'getAuditOrder',
    summary: 'Poll an audit order (variant A, any tier)',
    description: "Only the ordering account sees an order; anyone else's order is 404.",
    tags: ['Audits'],
    access: { kind: 'key', variants: ['A'] },
    request: { params: OrderIdParams },
    responses: { 200: { description: 'The order', schema: AuditOrder } },
    async handler(ctx, { params }, services) {
      const order = await getOrder(services.db, ctx.state.principal!.accountId, params.order_id);
      ctx.body = presentOrder(order, services.config);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/audit/:order_id/report',
    operationId: 'getAuditReportHtml',
    summary: 'The audit report as a self-contained HTML page',
    description:
      'The `token` (part of `report_url`) is the credential: no key is needed, so the URL can be shared. Without a token, a key of the account that ordered it is enough. A client that prefers JSON (`Accept: application/json`) is sent to the `.json` form with 303.',
    tags: ['Audits'],
    access: reportAccess,
    request: { params: OrderIdParams, query: ReportQuery },
    responses: {
      200: { description: 'The report', contentType: 'text/html' },
      303: {
        description: 'The JSON form, for clients that accept JSON rather than HTML',
        headers: { Location: { description: 'The .json URL', schema: { type: 'string' } } },
      },
    },
    async handler(ctx, { params, query }, services) {
      const order = await reportOrder(ctx, services, params.order_id, query.token);
      const jsonHref = query.token ? `report.json?token=${encodeURIComponent(query.token)}` : 'report.json';
      reportHeaders(ctx);
      if (ctx.accepts('text/html', 'application/json') === 'application/json') {
        ctx.status = 303;
        ctx.set('Location', `/api/v1/audit/${order.id}/${jsonHref}`);
        return;
      }
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = renderReportHtml(order.report as unknown as Report, { jsonHref });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/audit/:order_id/report.json',
    operationId: 'getAuditReportJson',
    summary: 'The audit report as JSON',
    description:
      'Findings grouped by severity, each with its affected URLs and guidance, the pages audited with their scores, and how the crawl went.',
    tags: ['Audits'],
    access: reportAccess,
    request: { params: OrderIdParams, query: ReportQuery },
    responses: { 200: { description: 'The report', schema: AuditReport } },
    async handler(ctx, { params, query }, services) {
      const order = await reportOrder(ctx, services, params.order_id, query.token);
      reportHeaders(ctx);
      ctx.body = order.report;
    },
  }),
];
