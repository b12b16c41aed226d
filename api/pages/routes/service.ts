import { providerStatus } from '../../../shared/geo/answer-engines/index.ts';
import { API_VERSION, serviceHealthy } from '../../routes/status/index.ts';
import { definePage, type PageDef } from '../page.ts';
import { renderMcpPage, renderServiceStatus } from '../service-pages.ts';
import { html200, type PageKit } from '../web.ts';

// The footer's pages about the service: its status (GET /api/v1/status for people) and how to
// connect an MCP client (GET /mcp in a browser). Callers that do not ask for HTML get what these
// addresses gave them before: the MCP discovery record at /mcp, 404 at /status.

export function serviceRoutes({ services }: PageKit): PageDef[] {
  const { config } = services;
  return [
    definePage({
      method: 'get',
      path: '/status',
      auth: 'anyone',
      forMachines: 'pass',
      handler: async (ctx, web) => {
        const healthy = await serviceHealthy(services);
        html200(
          ctx,
          renderServiceStatus(web.viewer, {
            healthy,
            version: API_VERSION,
            engines: providerStatus(config),
            baseUrl: config.publicBaseUrl,
          }),
          healthy ? 200 : 503,
        );
      },
    }),
    definePage({
      method: 'get',
      path: '/mcp',
      auth: 'anyone',
      forMachines: 'pass',
      handler: async (ctx, web) => html200(ctx, renderMcpPage(web.viewer, config.publicBaseUrl)),
    }),
  ];
}
