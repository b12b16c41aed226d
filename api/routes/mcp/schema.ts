import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

// POST /mcp is validated with the SDK's own JSON-RPC message schema, so the description and the
// transport accept exactly the same bodies.
export const McpRequestBody = z
  .union([JSONRPCMessageSchema, z.array(JSONRPCMessageSchema).min(1).max(MAX_BATCH_SIZE)])
  .meta({
    id: 'JsonRpcMessage',
    description:
      'A JSON-RPC 2.0 message (or a batch of them): initialize, notifications/initialized, tools/list, tools/call.',
  });

const JsonRpcErrorObject = z.object({
  code: z
    .number()
    .int()
    .describe(
      '-32001 no valid API key, -32002 tier too low, -32602 invalid arguments, -32029 rate limit, -32601 unknown method, -32603 internal',
    ),
  message: z.string(),
  data: z.unknown().optional().describe('For our errors: { code, errors?: [{ field, message }], ... }'),
});

const JsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: JsonRpcErrorObject.optional(),
  })
  .meta({ id: 'JsonRpcResponse', description: 'A JSON-RPC 2.0 response: `result` or `error`.' });

export const McpResponseBody = z.union([JsonRpcResponse, z.array(JsonRpcResponse)]);

export const McpDiscovery = z
  .object({
    name: z.string(),
    version: z.string(),
    description: z.string(),
    endpoint: z.string().url().describe('URL of the MCP endpoint'),
    protocol: z.literal('jsonrpc-2.0'),
  })
  .meta({ id: 'McpDiscovery' });

const Authentication = z.object({
  scheme: z.literal('bearer'),
  header: z.string(),
  requiredFor: z.array(z.string()),
  description: z.string(),
});

const ToolSummary = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  variant: z.enum(['A', 'B']),
  tiers: z.array(z.string()).nullable().describe('Tiers that may call it; null: every tier of the variant'),
});

export const McpServerCard = McpDiscovery.extend({
  title: z.string(),
  transport: z.literal('streamable-http'),
  protocolVersions: z.array(z.string()),
  authentication: Authentication,
  remotes: z.array(
    z.object({
      type: z.literal('streamable-http'),
      url: z.string().url(),
      headers: z.array(
        z.object({
          name: z.string(),
          description: z.string(),
          isRequired: z.boolean(),
          isSecret: z.boolean(),
        }),
      ),
      supportedProtocolVersions: z.array(z.string()),
    }),
  ),
  tools: z.array(ToolSummary),
  documentation: z.string().url(),
  openapi: z.string().url(),
}).meta({ id: 'McpServerCard' });

export const AgentCard = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    url: z.string().url(),
    documentation: z.string().url(),
    interfaces: z.array(
      z.object({
        type: z.enum(['mcp', 'openapi']),
        url: z.string().url(),
        transport: z.string().optional(),
        discovery: z.string().url().optional(),
      }),
    ),
    authentication: Authentication,
    skills: z.array(ToolSummary),
  })
  .meta({ id: 'AgentCard' });

export const JsonRpcErrorResponse = JsonRpcResponse.required({ error: true });
