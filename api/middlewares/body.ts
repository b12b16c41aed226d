import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { Config } from '../../shared/config.ts';
import type { RouteDef } from '../route.ts';
import { jsonBodyOnly } from './json-body.ts';

// A route's body step, after admission: a JSON endpoint refuses other media types (415), then the
// body is parsed within the route's limit. Routes without a body schema, and methods without a
// body, pass straight on.

const BODY_METHODS = new Set(['post', 'put', 'patch']);

/** One parser per body limit: most routes take BODY_LIMIT, a few (collect) declare their own. */
const parsers = new Map<string, Middleware>();

function parserFor(limit: string): Middleware {
  let parser = parsers.get(limit);
  if (!parser) {
    parser = koaBody({
      jsonLimit: limit,
      formLimit: limit,
      textLimit: limit,
      multipart: false,
      jsonStrict: true,
      onError: (err) => {
        throw err;
      },
    }) as Middleware;
    parsers.set(limit, parser);
  }
  return parser;
}

/** The route's body middlewares, in order (none for a GET). */
export function routeBody(
  def: Pick<RouteDef, 'method' | 'request' | 'responses' | 'bodyLimit' | 'rawBody'>,
  config: Pick<Config, 'BODY_LIMIT'>,
): Middleware[] {
  const steps: Middleware[] = [];
  // Where the route declares its own 415 body (MCP), the refusal is a JSON-RPC error.
  if (def.request?.body) steps.push(jsonBodyOnly(def.responses[415] ? 'jsonrpc' : 'problem'));
  // A route that reads its own bytes (a signed webhook) gets no parser.
  if (BODY_METHODS.has(def.method) && !def.rawBody) steps.push(parserFor(def.bodyLimit ?? config.BODY_LIMIT));
  return steps;
}
