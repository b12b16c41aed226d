import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Services } from '../../shared/services.ts';
import type { RouteContext } from '../route.ts';
import { createMcpServer, McpCaller } from './server.ts';

// The Koa side of POST /mcp. Stateless Streamable HTTP: a new server and transport per request
// (no session id), answering with plain JSON rather than an SSE stream. The SDK's web-standard
// transport takes a fetch Request and returns a Response, so Koa keeps writing the answer itself
// (status, the X-RateLimit-* headers of every response, request logging) instead of handing the
// raw socket to the SDK.

function webRequest(ctx: RouteContext): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The transport only reads the URL into the handlers' request info; a fixed origin keeps a
  // strange Host header from failing the request.
  return new Request(new URL(ctx.originalUrl, 'http://mcp.invalid'), { method: 'POST', headers });
}

/** Answers one POST /mcp whose JSON body the app has already parsed and validated. */
export async function handleMcpPost(ctx: RouteContext, body: unknown, services: Services): Promise<void> {
  const caller = new McpCaller(services, ctx);
  const server = createMcpServer(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const res = await transport.handleRequest(webRequest(ctx), { parsedBody: body });
    res.headers.forEach((value, name) => {
      if (name !== 'content-length') ctx.set(name, value);
    });
    // A call refused by the rate limit keeps HTTP's 429 (and Retry-After) around its JSON-RPC error.
    ctx.status = caller.retryAfter === undefined ? res.status : 429;
    if (caller.retryAfter !== undefined) ctx.set('Retry-After', String(caller.retryAfter));
    const text = await res.text();
    ctx.body = text;
    // 202 (notifications only) has no body; Koa would otherwise call the empty string text/plain.
    if (!text) ctx.remove('Content-Type');
  } finally {
    await server.close();
  }
}
