import { z } from 'zod';
import { getSite } from '../../../shared/agent-sites/sites.ts';
import { siteEvents } from '../../../shared/agent-traffic/stats.ts';
import { html } from '../../../shared/html.ts';
import { EventsQuery } from '../../routes/sites/schema.ts';
import { renderAgentEvents } from '../agent-events-pages.ts';
import { renderMessage } from '../auth-pages.ts';
import { definePage, type PageDef } from '../page.ts';
import { accountOf, html200, type PageKit, viewerOf } from '../web.ts';

// The raw event stream of one agent site in the console (variant B): GET /api/v1/sites/:id/events
// as a page, read by the same function (siteEvents) with the same query schema, filters and cursor.

const SiteParams = z.object({ id: z.string().regex(/^(?:\d{1,18}|site_[0-9A-Za-z]{16})$/) });

/** The query as a GET form sends it: an empty field is a filter not set. */
function queryOf(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string' && v !== '') out[k] = v;
  return out;
}

export function agentSiteEventRoutes({ services }: PageKit): PageDef[] {
  const { db } = services;
  return [
    definePage({
      method: 'get',
      path: '/console/agent-sites/:id/events',
      auth: 'B',
      params: SiteParams,
      handler: async (ctx, web, { params: { id } }) => {
        const site = await getSite(db, accountOf(web), id); // another account's: 404
        const query = EventsQuery.safeParse(queryOf(ctx.query));
        if (!query.success) {
          const fields = query.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
          html200(
            ctx,
            renderMessage(
              'Check the filters',
              html`<p>These filters could not be used:</p><ul>${fields.map((f) => html`<li>${f}</li>`)}</ul><p><a href="/console/agent-sites/${site.id}/events">Show all events</a></p>`,
              viewerOf(web),
            ),
            400,
          );
          return;
        }
        const q = query.data;
        // A cursor that is not one of ours is a 400 page, as it is a 400 over REST.
        const page = await siteEvents(db, site, q);
        const asked = queryOf(ctx.query);
        html200(
          ctx,
          renderAgentEvents(viewerOf(web), {
            site,
            filters: {
              platform: q.platform,
              type: q.type,
              verification: q.verification,
              path: q.path,
              limit: asked.limit ? q.limit : undefined,
            },
            page,
            paged: Boolean(q.cursor),
          }),
        );
      },
    }),
  ];
}
