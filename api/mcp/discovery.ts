import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../../shared/config.ts';
import type { Variant } from '../../shared/db/tables/accounts.ts';
import { API_VERSION } from '../routes/status/index.ts';
import { MCP_SERVER_NAME } from './server.ts';
import { TOOLS } from './tools/index.ts';

// What an agent can read before connecting: GET /mcp (interface.md's discovery record) and the
// two well-known files of the site host. The MCP endpoint lives on {base_url}; the files on
// {site_url}; both are this server unless configured otherwise.

type Urls = Pick<Config, 'publicBaseUrl' | 'publicSiteUrl' | 'docsUrl'>;

const DESCRIPTION =
  'Website scanning over MCP: seven-dimension site audits and audit orders (sl_live_ keys), ' +
  'agent-readability and citability scores (ar_ keys).';

const mcpEndpoint = (config: Urls) => `${config.publicBaseUrl}/mcp`;

export function discoveryRecord(config: Urls) {
  return {
    name: MCP_SERVER_NAME,
    version: API_VERSION,
    description: DESCRIPTION,
    endpoint: mcpEndpoint(config),
    protocol: 'jsonrpc-2.0' as const,
  };
}

function toolSummaries() {
  return (Object.entries(TOOLS) as [Variant, (typeof TOOLS)[Variant]][]).flatMap(([variant, tools]) =>
    tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      variant,
      tiers: t.tiers ?? null,
    })),
  );
}

const authentication = {
  scheme: 'bearer' as const,
  header: 'Authorization',
  requiredFor: ['tools/call'],
  description:
    'Authorization: Bearer <API_KEY>. initialize and tools/list work without a key (variant A tools are ' +
    "listed unless a variant B key is sent); tools/call needs one and counts against the key's hourly limit.",
};

/** /.well-known/mcp.json: the discovery record plus what a client needs to connect. */
export function mcpServerCard(config: Urls) {
  return {
    ...discoveryRecord(config),
    title: 'Sightline',
    transport: 'streamable-http' as const,
    protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    authentication,
    remotes: [
      {
        type: 'streamable-http' as const,
        url: mcpEndpoint(config),
        headers: [
          { name: 'Authorization', description: 'Bearer <API_KEY>', isRequired: false, isSecret: true },
        ],
        supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      },
    ],
    tools: toolSummaries(),
    documentation: config.docsUrl,
    openapi: `${config.publicBaseUrl}/openapi.json`,
  };
}

/** /.well-known/agent.json: the service as agents meet it, over MCP or REST. */
export function agentCard(config: Urls) {
  return {
    name: 'Sightline',
    description: DESCRIPTION,
    version: API_VERSION,
    url: config.publicSiteUrl,
    documentation: config.docsUrl,
    interfaces: [
      {
        type: 'mcp' as const,
        transport: 'streamable-http',
        url: mcpEndpoint(config),
        discovery: `${config.publicSiteUrl}/.well-known/mcp.json`,
      },
      { type: 'openapi' as const, url: `${config.publicBaseUrl}/openapi.json` },
    ],
    authentication,
    skills: toolSummaries(),
  };
}
