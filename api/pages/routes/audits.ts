import { getOrder, listOrders, reportUrl } from '../../../shared/audits/orders.ts';
import { renderOrder, renderOrders } from '../console-pages.ts';
import { definePage, type PageDef } from '../page.ts';
import { accountOf, html200, type PageKit, viewerOf } from '../web.ts';

// Audit orders in the console (variant A): the list, and one order with its report's links once
// delivered.

export function auditRoutes({ services }: PageKit): PageDef[] {
  const { db, config } = services;

  return [
    definePage({
      method: 'get',
      path: '/console/audits',
      auth: 'A',
      handler: async (ctx, web) => {
        html200(
          ctx,
          renderOrders(viewerOf(web), await listOrders(db, { accountId: accountOf(web), limit: 200 })),
        );
      },
    }),
    definePage({
      method: 'get',
      path: '/console/audits/:id',
      auth: 'A',
      handler: async (ctx, web) => {
        const order = await getOrder(db, accountOf(web), ctx.params.id!); // another account's: 404
        const links =
          order.status === 'delivered'
            ? { html: reportUrl(config, order), json: reportUrl(config, order, 'json') }
            : null;
        html200(ctx, renderOrder(viewerOf(web), order, links));
      },
    }),
  ];
}
