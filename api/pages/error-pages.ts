import type { Middleware } from 'koa';
import type { Services } from '../../shared/services.ts';
import { noteFailure, throwIfUnanswered, toAppError } from '../middlewares/errors.ts';
import { wantsHtml } from './page.ts';
import { renderErrorPage } from './service-pages.ts';
import { html200, setPageHeaders } from './web.ts';

/**
 * Addresses that keep their machine formats for everyone: the API, MCP, metrics, the OpenAPI
 * document, well-known records and any `.json` address (e.g. a status page's JSON).
 */
const MACHINE_PATH = /^\/(?:api\/|mcp(?:\/|$)|metrics(?:\/|$)|openapi\.json$|\.well-known\/)|\.json$/;

/**
 * A person (Accept naming text/html) asking for an address outside the machine ones gets any
 * error (no route, 405, 429, 5xx...) as an HTML page with the same status and headers; every
 * other caller gets problem+json from the frame.
 */
export function errorPages(services: Services): Middleware {
  const asPages: Middleware = async (ctx, next) => {
    try {
      await next();
      throwIfUnanswered(ctx);
    } catch (thrown) {
      const err = toAppError(thrown);
      noteFailure(ctx, thrown, err, services.log);
      const headers = err.extra.headers ?? {};
      for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
      setPageHeaders(ctx);
      html200(ctx, renderErrorPage(err.status, err.title, err.detail, headers['Retry-After']), err.status);
    }
  };
  // Not an async function itself: machine calls pass through with no promise of this step's own.
  return (ctx, next) => (MACHINE_PATH.test(ctx.path) || !wantsHtml(ctx) ? next() : asPages(ctx, next));
}
