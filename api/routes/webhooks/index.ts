import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../../shared/webhooks/endpoints.ts';
import { presentAttempt, presentDelivery, presentWebhook } from '../../presenters/site-citability.ts';
import { type Access, defineRoute } from '../../route.ts';
import { locationHeader } from '../scans/schema.ts';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryList,
  TestDelivery,
  UpdateWebhookBody,
  Webhook,
  WebhookList,
  WebhookParams,
  WebhookWithSecret,
} from './schema.ts';

// Webhook endpoints (variant B, optimisation tier: 403 tier_required below it, decisions.md).
// Deliveries are signed per Standard Webhooks with the endpoint's own whsec_ secret, sent once
// (no retries) to a URL that passes the scan address policy, redirects not followed. Another
// account's endpoint answers 404.
const access: Access = { kind: 'key', variants: ['B'], tiers: ['optimisation'] };
const tags = ['Webhooks'];

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/webhooks',
    operationId: 'listWebhooks',
    summary: 'Your webhook endpoints',
    tags,
    access,
    responses: { 200: { description: 'Endpoints (secrets are not listed)', schema: WebhookList } },
    async handler(ctx, _input, services) {
      const rows = await listEndpoints(services.db, ctx.state.principal!.accountId);
      ctx.body = { webhooks: rows.map((w) => presentWebhook(w)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/webhooks',
    operationId: 'createWebhook',
    summary: 'Add a webhook endpoint for monitoring.alert',
    description:
      'After each weekly (Monday) scan of a registered site, a monitoring.alert goes to every enabled endpoint whose `site_ids` include the site (or are null) when the overall score or a dimension crosses the endpoint’s `threshold`. The answer carries the endpoint’s `secret` (whsec_…), shown only here and on rotation. A URL on a private, loopback or metadata address is refused with 400 `url_not_allowed`. At most 20 endpoints per account.',
    tags,
    access,
    request: { body: CreateWebhookBody },
    responses: {
      201: {
        description: 'The endpoint, with its secret',
        schema: WebhookWithSecret,
        headers: locationHeader,
      },
    },
    async handler(ctx, { body }, services) {
      const w = await createEndpoint(services, ctx.state.principal!.accountId, {
        url: body.url,
        events: body.events,
        siteIds: body.site_ids,
        threshold: body.threshold,
        enabled: body.enabled,
      });
      ctx.status = 201;
      ctx.set('Location', `/api/v1/webhooks/${w.id}`);
      ctx.body = presentWebhook(w, { secret: true });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/webhooks/:id',
    operationId: 'getWebhook',
    summary: 'One webhook endpoint',
    tags,
    access,
    request: { params: WebhookParams },
    responses: { 200: { description: 'The endpoint', schema: Webhook } },
    async handler(ctx, { params }, services) {
      ctx.body = presentWebhook(await getEndpoint(services.db, ctx.state.principal!.accountId, params.id));
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/webhooks/:id',
    operationId: 'updateWebhook',
    summary: 'Change an endpoint’s url, events, site_ids, threshold or enabled',
    description: '`site_ids: null` alerts on every site. A disabled endpoint receives no alerts.',
    tags,
    access,
    request: { params: WebhookParams, body: UpdateWebhookBody },
    responses: { 200: { description: 'The updated endpoint', schema: Webhook } },
    async handler(ctx, { params, body }, services) {
      const w = await updateEndpoint(services, ctx.state.principal!.accountId, params.id, {
        url: body.url,
        events: body.events,
        siteIds: body.site_ids,
        threshold: body.threshold,
        enabled: body.enabled,
      });
      ctx.body = presentWebhook(w);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/webhooks/:id',
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook endpoint',
    tags,
    access,
    request: { params: WebhookParams },
    responses: { 204: { description: 'Removed' } },
    async handler(ctx, { params }, services) {
      await deleteEndpoint(services.db, ctx.state.principal!.accountId, params.id);
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/webhooks/:id/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Issue a new signing secret',
    description: 'The old secret stops signing at once; the answer shows the new one.',
    tags,
    access,
    request: { params: WebhookParams },
    responses: { 200: { description: 'The endpoint, with its new secret', schema: WebhookWithSecret } },
    async handler(ctx, { params }, services) {
      const w = await rotateSecret(services.db, ctx.state.principal!.accountId, params.id);
      ctx.body = presentWebhook(w, { secret: true });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/webhooks/:id/test',
    operationId: 'testWebhook',
    summary: 'Send a signed webhook.test event now and report the delivery',
    description:
      'One attempt, as for alerts (10 s bound, no redirects, no retry); answers 200 with the outcome whether the receiver accepted it or not. Disabled endpoints can be tested too.',
    tags,
    access,
    request: { params: WebhookParams },
    responses: { 200: { description: 'The delivery attempt', schema: TestDelivery } },
    async handler(ctx, { params }, services) {
      const attempt = await sendTestEvent(services, ctx.state.principal!.accountId, params.id);
      ctx.body = presentAttempt(attempt);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/webhooks/:id/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'The endpoint’s last deliveries, newest first',
    tags,
    access,
    request: { params: WebhookParams, query: DeliveriesQuery },
    responses: { 200: { description: 'Deliveries', schema: DeliveryList } },
    async handler(ctx, { params, query }, services) {
      const rows = await listDeliveries(services.db, ctx.state.principal!.accountId, params.id, query.limit);
      ctx.body = { deliveries: rows.map(presentDelivery) };
    },
  }),
];
