import type { ProviderStatus } from '../../shared/geo/answer-engines/index.ts';
import { html } from '../../shared/html.ts';
import { renderMessage } from './auth-pages.ts';
import { renderNotFound } from './console-pages.ts';
import { renderPage, type Viewer } from './layout.ts';

// Pages for people about the service itself: its status, how to connect an MCP client, and the
// error pages a browser gets instead of problem+json.

export interface ServiceStatusView {
  healthy: boolean;
  version: string;
  engines: ProviderStatus[];
  baseUrl: string;
}

export function renderServiceStatus(viewer: Viewer | null, s: ServiceStatusView): string {
  const engines = s.engines.filter((e) => e.available);
  return renderPage(
    { title: 'Service status', viewer },
    html`<section class="card"><h1>Service status</h1>
<p class="lead">${s.healthy ? 'Sightline is operational.' : 'Sightline is degraded: its database is not answering. Scans and accounts are unavailable until it is back.'}</p>
<dl>
<dt>API version</dt><dd>${s.version}</dd>
<dt>Answer engines (GEO)</dt><dd>${engines.length ? engines.map((e) => `${e.id} (${e.model})`).join(', ') : 'none configured: GEO visibility runs are unavailable on this server'}</dd>
</dl>
<p>Programs and uptime checks read the same as JSON at <a href="/api/v1/status"><code>${s.baseUrl}/api/v1/status</code></a> (200 when operational, 503 when degraded).</p>
</section>`,
  );
}

export function renderMcpPage(viewer: Viewer | null, baseUrl: string): string {
  const endpoint = `${baseUrl}/mcp`;
  const config = JSON.stringify(
    {
      mcpServers: {
        sightline: { type: 'http', url: endpoint, headers: { Authorization: 'Bearer YOUR_KEY' } },
      },
    },
    null,
    2,
  );
  return renderPage(
    { title: 'MCP endpoint', viewer },
    html`<section class="card"><h1>Connect an AI client (MCP)</h1>
<p>Sightline is a Model Context Protocol server: AI assistants such as Claude, Cursor or VS Code can scan sites, read scores and order audits through it. Its address is</p>
<p><code>${endpoint}</code></p>
<p>It speaks Streamable HTTP and takes your API key in the <code>Authorization</code> header. <a href="${viewer ? '/console/keys' : '/signup'}">${viewer ? 'Create a key in the console' : 'Sign up for a key'}</a>; listing the tools needs no key.</p>
<h2>Claude Code</h2>
<pre><code>claude mcp add --transport http sightline ${endpoint} \\
  --header "Authorization: Bearer YOUR_KEY"</code></pre>
<h2>Cursor, Claude Code project files and other clients</h2>
<p>In <code>.mcp.json</code> or <code>~/.cursor/mcp.json</code>:</p>
<pre><code>${config}</code></pre>
<p>Clients that speak only stdio can use a bridge: <code>npx mcp-remote ${endpoint} --header "Authorization: Bearer YOUR_KEY"</code>.</p>
<p>The tools, their inputs and plans: the <a href="/docs/guides/mcp">MCP guide</a>. Machine-readable discovery: <a href="/.well-known/mcp.json">/.well-known/mcp.json</a>.</p>
</section>`,
  );
}

/** An error as a page: 404 as the not-found page, anything else by its title and detail. */
export function renderErrorPage(status: number, title: string, detail: string, retryAfter?: string): string {
  if (status === 404) return renderNotFound(null);
  const wait = retryAfter ? html`<p>Try again in ${retryAfter} s.</p>` : '';
  return renderMessage(title, html`<p>${detail}</p>${wait}<p><a href="/">Back to the start</a></p>`, null);
}
