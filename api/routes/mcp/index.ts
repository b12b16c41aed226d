import { agentCard, discoveryRecord, mcpServerCard } from '../../mcp/discovery.ts';
import { handleMcpPost } from '../../mcp/http.ts';
import { defineRoute, type RouteContext } from '../../route.ts';
import {
  AgentCard,
  JsonRpcErrorResponse,
  McpDiscovery,
  McpRequestBody,
  McpResponseBody,
  McpServerCard,
} from './schema.ts';

// MCP over Streamable HTTP, stateless (api/mcp/). The routes are `public` to the guard, which
// only shows the caller's rate-limit headers: initialize and tools/list are not counted (per key
// or per address), and tools/call does its own key check and counting, because its errors must
// be JSON-RPC errors rather than problem bodies.

const retryAfter = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } };

/** Discovery documents are public and static: any page or agent may read them. */
const discoveryHeaders = (ctx: RouteContext) => {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Cache-Control', 'public, max-age=300');
};

export default [
  defineRoute({
    method: 'post',
    path: '/mcp',
    operationId: 'mcp',
    summary: 'MCP endpoint (JSON-RPC 2.0 over Streamable HTTP, stateless)',
    description:
      'Send `Accept: application/json, text/event-stream`. `initialize` and `tools/list` need no key (variant A ' +
      'tools are listed unless a variant B key is sent); `tools/call` needs `Authorization: Bearer <API_KEY>` ' +
      "and counts against the key's hourly limit like any REST call. Tool errors are JSON-RPC errors: -32001 " +
      'no valid key, -32002 tier too low, -32602 invalid arguments (named in `error.data.errors`), -32029 rate ' +
      'limit (with HTTP 429 and Retry-After). A body that is not a JSON-RPC message is refused with 400.',
    tags: ['MCP'],
    access: { kind: 'public' },
    request: { body: McpRequestBody },
    responses: {
      200: { description: 'JSON-RPC response(s)', schema: McpResponseBody },
      202: { description: 'Notifications accepted (no body)' },
      406: {
        description: 'Accept must list application/json and text/event-stream',
        schema: JsonRpcErrorResponse,
      },
      415: { description: 'Content-Type must be application/json', schema: JsonRpcErrorResponse },
      429: {
        description: 'A tools/call over the rate limit: JSON-RPC error -32029',
        schema: JsonRpcErrorResponse,
        headers: retryAfter,
      },
    },
    async handler(ctx, { body }, services) {
      await handleMcpPost(ctx, body, services);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/mcp',
    operationId: 'mcpDiscovery',
    summary: 'MCP discovery record',
    description:
      'Without `Accept: text/event-stream`: the discovery record. With it: 405, as this stateless server ' +
      'offers no server-to-client event stream.',
    tags: ['MCP'],
    access: { kind: 'public' },
    responses: {
      200: { description: 'Discovery record', schema: McpDiscovery },
      405: { description: 'No SSE stream on a stateless server', schema: JsonRpcErrorResponse },
    },
    handler(ctx, _input, services) {
      if (ctx.get('accept').includes('text/event-stream')) {
        ctx.status = 405;
        ctx.set('Allow', 'GET, POST');
        ctx.body = {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Method not allowed: this stateless server offers no SSE stream.' },
        };
        return;
      }
      discoveryHeaders(ctx);
      ctx.body = discoveryRecord(services.config);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/.well-known/mcp.json',
    operationId: 'mcpWellKnown',
    summary: 'MCP server card: endpoint, transport, authentication and tools',
    tags: ['MCP'],
    access: { kind: 'public' },
    responses: { 200: { description: 'Server card', schema: McpServerCard } },
    handler(ctx, _input, services) {
      discoveryHeaders(ctx);
      ctx.body = mcpServerCard(services.config);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/.well-known/agent.json',
    operationId: 'agentWellKnown',
    summary: 'How agents use this service: MCP and REST interfaces, authentication, skills',
    tags: ['MCP'],
    access: { kind: 'public' },
    responses: { 200: { description: 'Agent card', schema: AgentCard } },
    handler(ctx, _input, services) {
      discoveryHeaders(ctx);
      ctx.body = agentCard(services.config);
    },
  }),
];
