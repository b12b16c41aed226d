import { notFound } from '../../../shared/errors.ts';
import { statusPageData } from '../../../shared/monitoring/sites.ts';
import { renderNotFoundPage, renderStatusPage, STATUS_PAGE_CSP } from '../../pages/status-page.ts';
import { presentStatusPage } from '../../presenters/monitoring.ts';
import { defineRoute, type RouteContext } from '../../route.ts';
import { StatusPage, StatusTokenParams } from './schema.ts';

// The public status page of a monitoring subscription ({site_url}/status/<token>): no login, the
// token is the secret. HTML for people, .json for machines, the same data in both.

const pageHeaders = (ctx: RouteContext) => {
  ctx.set('Cache-Control', 'public, max-age=60');
  ctx.set('Content-Security-Policy', STATUS_PAGE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
};

export default [
  // Registered before the HTML route, whose :token would otherwise take "<token>.json".
  defineRoute({
    method: 'get',
    path: '/status/:token.json',
    operationId: 'getStatusPageJson',
    summary: 'Public status page data (JSON)',
    description: 'The status page as JSON: each own site’s latest scores, its history and recent alerts.',
    tags: ['Status page'],
    access: { kind: 'public' },
    request: { params: StatusTokenParams },
    responses: { 200: { description: 'Status page data', schema: StatusPage } },
    async handler(ctx, { params }, services) {
      const data = await statusPageData(services.db, params.token);
      if (!data) throw notFound('No status page with that token.');
      ctx.set('Cache-Control', 'public, max-age=60');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer'); // the URL is the credential: never leak it onward
      ctx.body = presentStatusPage(data);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/status/:token',
    operationId: 'getStatusPage',
    summary: 'Public status page (HTML)',
    description:
      'Server-rendered page with each own site’s current overall and dimension scores, a chart of the last scans, when it was last scanned, and recent alerts.',
    tags: ['Status page'],
    access: { kind: 'public' },
    request: { params: StatusTokenParams },
    responses: {
      200: { description: 'The status page', contentType: 'text/html' },
      404: { description: 'Unknown token: an HTML page saying so', contentType: 'text/html' },
    },
    async handler(ctx, { params }, services) {
      const data = await statusPageData(services.db, params.token);
      pageHeaders(ctx);
      ctx.type = 'text/html; charset=utf-8';
      if (!data) {
        ctx.set('Cache-Control', 'no-store');
        ctx.status = 404;
        ctx.body = renderNotFoundPage();
        return;
      }
      ctx.body = renderStatusPage(presentStatusPage(data));
    },
  }),
];
