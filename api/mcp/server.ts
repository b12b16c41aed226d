import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AdmissionError, Admitter } from '../../shared/accounts/admission.ts';
import { type AuthResult, authenticate, type Principal } from '../../shared/accounts/auth.ts';
import { findNul } from '../../shared/db/json.ts';
import { AppError, type FieldError } from '../../shared/errors.ts';
import type { Services } from '../../shared/services.ts';
import { callerOf, setRateHeaders } from '../middlewares/guard.ts';
import type { RouteContext } from '../route.ts';
import { API_VERSION } from '../routes/status/index.ts';
import { invalidParams, RPC, RpcError, rpcErrorFor } from './errors.ts';
import { listing } from './tool.ts';
import { TOOLS } from './tools/index.ts';

const LooseCallToolRequest = z.object({ method: z.literal('tools/call'), params: z.unknown() });

// The MCP server, built per HTTP request (stateless Streamable HTTP) on the SDK's low-level
// Server: its McpServer wrapper turns every tool failure into an isError result, while the
// contract wants real JSON-RPC errors for a missing key (-32001), a low tier (-32002) and bad
// arguments (-32602). initialize and tools/list need no key; tools/call authenticates, counts
// against the key's hourly budget (the one REST calls share), then checks tier and arguments.

export const MCP_SERVER_NAME = 'sightline';

const MCP_INSTRUCTIONS =
  'Sightline scans websites. Send your API key as `Authorization: Bearer <API_KEY>`: sl_live_ keys ' +
  'get the site-audit tools, ar_ keys the agent-readability tools. Every tools/call counts against the ' +
  "key's hourly limit. A scan still running when the tool stops waiting returns its id and status: " +
  'call the tool again with the same arguments to collect the result.';

/** One HTTP request's caller: its key (looked up at most once), rate-limit headers and log identity. */
export class McpCaller {
  private auth?: Promise<AuthResult>;
  private readonly admitter: Admitter;
  readonly header: string | undefined;
  /** Set once a call in this request was refused by the rate limit: the HTTP answer becomes 429. */
  retryAfter?: number;

  constructor(
    readonly services: Services,
    private readonly ctx: RouteContext,
  ) {
    this.header = ctx.get('authorization') || undefined;
    this.admitter = new Admitter(services.db, services.config);
  }

  /** The key's principal for tools/list (not counted). */
  authenticate(): Promise<AuthResult> {
    this.auth ??= authenticate(this.services.db, this.header);
    return this.auth;
  }

  /**
   * tools/call goes through the one admission path, as a REST call does: a valid key, counted
   * against its hourly budget (failed keys per client address). Refusals become JSON-RPC errors.
   */
  async admit(): Promise<Principal> {
    try {
      const { principal, rate } = await this.admitter.keyed(callerOf(this.ctx));
      setRateHeaders(this.ctx, rate);
      this.ctx.state.principal = principal; // the request log names the account, as for REST
      return principal;
    } catch (err) {
      if (!(err instanceof AdmissionError)) throw err;
      setRateHeaders(this.ctx, err.rate);
      if (err.status === 429) {
        const retryAfter = Math.max(1, err.rate.reset - Math.floor(Date.now() / 1000));
        this.retryAfter = retryAfter;
        throw new RpcError(RPC.rateLimited, err.detail, {
          code: 'rate_limited',
          limit: err.rate.limit,
          remaining: err.rate.remaining,
          reset: err.rate.reset,
          retryAfter,
        });
      }
      throw new RpcError(RPC.unauthorized, err.detail, { code: 'unauthorized' });
    }
  }
}

function argumentErrors(
  issues: { path: PropertyKey[]; message: string; code: string; keys?: string[] }[],
): FieldError[] {
  return issues.map((i) => ({
    // An unknown argument has an empty path; its name is in `keys`.
    field: i.path.length ? i.path.map(String).join('.') : (i.keys?.join(', ') ?? '(arguments)'),
    message: i.message,
  }));
}

async function callTool(caller: McpCaller, name: string, args: unknown): Promise<CallToolResult> {
  const { services } = caller;
  const principal = await caller.admit();
  const tools = TOOLS[principal.variant];
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    throw new RpcError(
      RPC.invalidParams,
      `Unknown tool ${name} for a variant ${principal.variant} key; its tools are ${tools.map((t) => t.name).join(', ')}.`,
      { code: 'unknown_tool', errors: [{ field: 'name', message: 'unknown tool' }] },
    );
  }
  if (tool.tiers && !tool.tiers.includes(principal.tier)) {
    throw new RpcError(
      RPC.tierRequired,
      `${name} needs a ${tool.tiers.join(' or ')} tier key; this key's tier is ${principal.tier}.`,
      { code: 'tier_required', tiers: tool.tiers },
    );
  }
  const nul = findNul(args ?? {}, 'arguments');
  if (nul) {
    const field = nul.slice('arguments.'.length);
    throw invalidParams(name, [{ field, message: 'must not contain a NUL byte' }]);
  }
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) throw invalidParams(name, argumentErrors(parsed.error.issues));
  try {
    const out = await tool.run(parsed.data, { services, principal });
    return {
      content: [{ type: 'text', text: out.text }],
      structuredContent: out.structured as Record<string, unknown>,
    };
  } catch (err) {
    if (err instanceof AppError) {
      const rpc = rpcErrorFor(name, err);
      if (rpc) throw rpc;
      if (err.status < 500) {
        return {
          isError: true,
          content: [{ type: 'text', text: `${err.title} (${err.code}): ${err.detail}` }],
        };
      }
    }
    services.log.error({ err, tool: name }, 'mcp tool failed');
    throw new RpcError(RPC.internal, 'Internal error; it has been logged.', { code: 'internal_error' });
  }
}

export function createMcpServer(caller: McpCaller): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, title: 'Sightline', version: API_VERSION },
    { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // No key (or a bad one) lists variant A's tools; a valid B key lists B's.
    const auth = caller.header ? await caller.authenticate() : undefined;
    const variant = auth?.ok ? auth.principal.variant : 'A';
    return { tools: TOOLS[variant].map(listing) };
  });
  // The SDK parses a request against the handler's schema before its own tools/call check, and a
  // failure there would answer -32603 (internal error). With a loose schema here, a tools/call whose
  // params are malformed (no name, arguments not an object) reaches that check: -32602.
  server.setRequestHandler(LooseCallToolRequest, (request) => {
    const { params } = CallToolRequestSchema.parse(request); // checked by the SDK just before
    return callTool(caller, params.name, params.arguments);
  });
  return server;
}
