import type Router from '@koa/router';
import { getOrder, listOrders, reportUrl } from '../../../shared/audits/orders.ts';
import { renderOrder, renderOrders } from '../console-pages.ts';
import { accountOf, html200, isVariant, type PageKit, viewerOf } from '../web.ts';

// Audit orders in the console (variant A): the list, and one order with its report's links once
// delivered.

export function auditRoutes(router: Router, { services, signedIn, notFoundPage }: PageKit): void {
  const { db, config } = services;

  router.get(
    '/console/audits',
    signedIn(async (ctx, web) => {
      if (!isVariant(web, 'A')) return notFoundPage(ctx, web);
      html200(
        ctx,
        renderOrders(viewerOf(web), await listOrders(db, { accountId: accountOf(web), limit: 200 })),
      );
    }),
  );
  router.get(
    '/console/audits/:id',
    signedIn(async (ctx, web) => {
      if (!isVariant(web, 'A')) return notFoundPage(ctx, web);
      const order = await getOrder(db, accountOf(web), ctx.params.id!); // another account's: 404
      const links =
        order.status === 'delivered'
          ? { html: reportUrl(config, order), json: reportUrl(config, order, 'json') }
          : null;
      html200(ctx, renderOrder(viewerOf(web), order, links));
    }),
  );
}
