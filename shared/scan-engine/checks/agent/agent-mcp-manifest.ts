import { isObject, nonEmptyString, pathOf, readMachineFile } from '../../../geo-scoring/machine-files.ts';
import { defineCheck, fail, pass, warn } from '../../check.ts';

/** An MCP server address in the common manifest shapes: endpoint/url, or servers/transport entries. */
function endpointOf(json: Record<string, unknown>): string | null {
  for (const key of ['endpoint', 'url', 'mcp_endpoint', 'serverUrl'])
    if (nonEmptyString(json[key])) return json[key];
  const servers = Array.isArray(json.servers)
    ? json.servers
    : isObject(json.mcpServers)
      ? Object.values(json.mcpServers)
      : [];
  for (const s of servers) {
    if (isObject(s)) for (const key of ['url', 'endpoint']) if (nonEmptyString(s[key])) return s[key];
  }
  if (isObject(json.transport) && nonEmptyString(json.transport.url)) return json.transport.url;
  return null;
}

export default defineCheck({
  meta: {
    id: 'agent-mcp-manifest',
    title: 'Advertises an MCP server',
    failureTitle: 'No MCP server advertised',
    description:
      'A /.well-known/mcp.json naming your Model Context Protocol endpoint lets assistants discover tools they can call on your site. Publish one with the server name and endpoint URL.',
    requiredArtifacts: ['WellKnown'],
  },
  run({ WellKnown }) {
    const file = WellKnown.mcp;
    const read = readMachineFile(file);
    const path = pathOf(file);
    if (read.state !== 'ok') return fail(`${path} ${read.reason}`, { url: file.url });
    if (!read.json) return fail(`${path} is not JSON`, { url: file.url });
    const endpoint = endpointOf(read.json);
    const name = nonEmptyString(read.json.name) ? read.json.name : null;
    const evidence = { url: file.url, name, endpoint };
    if (endpoint) return pass(`MCP server${name ? ` "${name}"` : ''} advertised at ${endpoint}`, evidence);
    return warn(`${path} parses but names no MCP endpoint`, 0.5, evidence);
  },
});
