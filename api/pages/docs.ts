import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import MarkdownIt from 'markdown-it';
import { type Html, html, raw } from '../../shared/html.ts';

// /docs: the interactive API reference (Swagger UI, served from node_modules, drawn from
// /openapi.json) and the guides in docs/*.md rendered to HTML. Everything is served from this
// origin: no CDN, no inline script, so the pages run under DOCS_CSP.

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI (React) sets style attributes; our own CSS is a file.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  // "Try it out" calls this API; the reference itself is fetched from /openapi.json.
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DOCS_DIR = path.join(ROOT, 'docs');
const SWAGGER_DIR = path.join(ROOT, 'node_modules', 'swagger-ui-dist');

/** The guides, in reading order; a guide not listed here is not served. */
export const GUIDES: { name: string; title: string }[] = [
  { name: 'console', title: 'Console' },
  { name: 'scoring', title: 'Scoring' },
  { name: 'monitoring', title: 'Monitoring' },
  { name: 'audits', title: 'Audits' },
  { name: 'geo', title: 'GEO' },
  { name: 'agent-analytics', title: 'Agent analytics' },
  { name: 'b-sites', title: 'Agent sites' },
  { name: 'mcp', title: 'MCP' },
  { name: 'operations', title: 'Operations' },
  { name: 'architecture', title: 'Architecture' },
  { name: 'benchmarks', title: 'Benchmarks' },
];

// Starts Swagger UI on the reference; a file of its own so script-src stays 'self'.
const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    // Deep links would put a link inside each operation's toggle button (nested controls).
    deepLinking: false,
    // The schemas are shown in each operation; a second, collapsed copy adds only small controls.
    defaultModelsExpandDepth: -1,
    validatorUrl: null,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
  // Swagger UI draws the operations in its own <main> (it replaces the static one) but leaves the
  // API's description and the server picker outside any landmark, and the picker without a name.
  var named = { '.information-container': 'About this API', '.schemes-server-container': 'Server' };
  new MutationObserver(function () {
    var select = document.getElementById('servers');
    if (select && !select.hasAttribute('aria-label')) select.setAttribute('aria-label', 'Server');
    // Its title is an <h1>, tag headings <h3> and an operation's section titles <h4>: they rank
    // as levels 2 and 3 under it.
    document.querySelectorAll('#reference h3.opblock-tag:not([aria-level])').forEach(function (h) {
      h.setAttribute('aria-level', '2');
    });
    document.querySelectorAll('#reference h4.opblock-title:not([aria-level])').forEach(function (h) {
      h.setAttribute('aria-level', '3');
    });
    // Example blocks scroll, so a keyboard must reach them; the body editor needs a name.
    document.querySelectorAll('#reference pre.microlight:not([tabindex])').forEach(function (pre) {
      pre.setAttribute('tabindex', '0');
    });
    document.querySelectorAll('#reference .body-param textarea:not([aria-label])').forEach(function (box) {
      box.setAttribute('aria-label', 'Request body');
    });
    Object.keys(named).forEach(function (selector) {
      var box = document.querySelector('#reference ' + selector);
      if (box && !box.hasAttribute('role')) {
        box.setAttribute('role', 'region');
        box.setAttribute('aria-label', named[selector]);
      }
    });
  }).observe(document.getElementById('reference'), { childList: true, subtree: true });
});
`;

const DOCS_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #5b6470; --line: #e3e6ea; --accent: #0a58ca; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
header.top { display: flex; flex-wrap: wrap; gap: 0 1.25rem; align-items: center; padding: .25rem 1.15rem; border-bottom: 1px solid var(--line); background: #f7f8fa; }
header.top .brand { font-weight: 700; font-size: 1.1rem; color: var(--ink); text-decoration: none; }
header.top nav { display: flex; flex-wrap: wrap; gap: 0 .25rem; font-size: .95rem; }
/* Menu links are 48 px tall targets for a finger. */
header.top nav a, header.top .brand { display: inline-flex; align-items: center; min-height: 48px; min-width: 48px; padding: 0 .35rem; color: var(--accent); text-decoration: none; }
header.top nav a[aria-current="page"] { color: var(--ink); font-weight: 600; }
main.guide { max-width: 52rem; margin: 0 auto; padding: 1.5rem; }
main.guide pre { background: #f4f5f7; padding: .8rem 1rem; overflow-x: auto; border-radius: 6px; font-size: .88rem; line-height: 1.45; }
main.guide code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .92em; }
/* Long paths and identifiers wrap on a phone instead of widening the page; code blocks scroll. */
main.guide { overflow-wrap: break-word; }
main.guide :not(pre) > code { overflow-wrap: anywhere; }
main.guide table { border-collapse: collapse; margin: 1rem 0; display: block; overflow-x: auto; }
main.guide th, main.guide td { border: 1px solid var(--line); padding: .35rem .6rem; text-align: left; vertical-align: top; }
main.guide img { max-width: 100%; }
.intro { padding: .75rem 1.5rem 0; color: var(--muted); font-size: .95rem; }
.intro a { color: var(--accent); }
.intro-title { margin: 0; padding: 1rem 1.5rem 0; font-size: 1.5rem; }
`;

/** The static files /docs/assets/<name> may serve, and where each comes from. */
const ASSETS: Record<string, { type: string; load: () => Promise<string | Buffer> }> = {
  'swagger-ui-bundle.js': {
    type: 'application/javascript; charset=utf-8',
    load: () => fs.readFile(path.join(SWAGGER_DIR, 'swagger-ui-bundle.js')),
  },
  'swagger-ui.css': {
    type: 'text/css; charset=utf-8',
    load: () => fs.readFile(path.join(SWAGGER_DIR, 'swagger-ui.css')),
  },
  'docs-init.js': { type: 'application/javascript; charset=utf-8', load: async () => INIT_JS },
  'docs.css': { type: 'text/css; charset=utf-8', load: async () => DOCS_CSS },
  'docs-swagger.css': {
    type: 'text/css; charset=utf-8',
    load: () => fs.readFile(path.join(ROOT, 'api', 'pages', 'assets', 'docs-swagger.css')),
  },
};

const assetCache = new Map<string, string | Buffer>();

/** A named asset, read once; undefined for any other name. */
export async function docsAsset(name: string): Promise<{ type: string; body: string | Buffer } | undefined> {
  const spec = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!spec) return undefined;
  let body = assetCache.get(name);
  if (body === undefined) {
    body = await spec.load();
    assetCache.set(name, body);
  }
  return { type: spec.type, body };
}

/** An image under docs/img (PNG or SVG only, plain names only). */
export async function docsImage(name: string): Promise<{ type: string; body: Buffer } | undefined> {
  const m = /^[a-z0-9][a-z0-9._-]*\.(png|svg)$/i.exec(name);
  if (!m || name.includes('..')) return undefined;
  const body = await fs.readFile(path.join(DOCS_DIR, 'img', name)).catch(() => undefined);
  if (!body) return undefined;
  return { type: m[1]!.toLowerCase() === 'png' ? 'image/png' : 'image/svg+xml', body };
}

// Raw HTML in a guide is shown as text (html: false), so a guide cannot carry a script.
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
const GUIDE_NAMES = new Set(GUIDES.map((g) => g.name));

/** Links between guides (`monitoring.md#x`) point at their /docs pages; images at /docs/img. */
export function rewriteHref(href: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || href.startsWith('#')) return href;
  const guide = /^(?:\.\/)?([a-z0-9-]+)\.md(#.*)?$/i.exec(href);
  if (guide && GUIDE_NAMES.has(guide[1]!)) return `/docs/guides/${guide[1]}${guide[2] ?? ''}`;
  const img = /^(?:\.\/)?img\/([^/]+)$/.exec(href);
  if (img) return `/docs/img/${img[1]}`;
  return href;
}

const defaultLink = md.renderer.rules.link_open;
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const href = token.attrGet('href');
  if (href !== null) token.attrSet('href', rewriteHref(String(href)));
  return defaultLink ? defaultLink(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
};
const defaultImage = md.renderer.rules.image;
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const src = token.attrGet('src');
  if (src !== null) token.attrSet('src', rewriteHref(String(src)));
  return defaultImage
    ? defaultImage(tokens, idx, options, env, self)
    : self.renderToken(tokens, idx, options);
};

/** GitHub's heading anchors (`## Which score is which` -> `#which-score-is-which`), so links from pages land. */
export function headingSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}
md.renderer.rules.heading_open = (tokens, idx, options, _env, self) => {
  const inline = tokens[idx + 1];
  if (inline?.type === 'inline') tokens[idx]!.attrSet('id', headingSlug(inline.content));
  return self.renderToken(tokens, idx, options);
};

function layout(title: string, current: string, body: Html, head: Html = html``): Html {
  const links = [
    html`<a href="/docs"${current === 'reference' ? raw(' aria-current="page"') : ''}>API reference</a>`,
    ...GUIDES.map(
      (g) =>
        html`<a href="/docs/guides/${g.name}"${current === g.name ? raw(' aria-current="page"') : ''}>${g.title}</a>`,
    ),
    html`<a href="/openapi.json">openapi.json</a>`,
  ];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Sightline</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/docs.css">
${head}
</head>
<body>
<header class="top"><a class="brand" href="/docs">Sightline docs</a><nav aria-label="Documentation">${links}</nav></header>
${body}
</body>
</html>`;
}

/** The API reference page: Swagger UI drawn from /openapi.json by /docs/assets/docs-init.js. */
export function renderReferencePage(): string {
  return layout(
    'API reference',
    'reference',
    html`<section aria-labelledby="reference-title"><h1 id="reference-title" class="intro-title">API reference</h1><p class="intro">Every endpoint, generated from <a href="/openapi.json">/openapi.json</a>. Agents can also use the MCP endpoint at <code>/mcp</code> (discovery: <a href="/.well-known/mcp.json">/.well-known/mcp.json</a>); see the <a href="/docs/guides/mcp">MCP guide</a>.</p></section>
<div id="reference"><main><noscript><p class="intro">The interactive reference needs JavaScript; the raw description is at <a href="/openapi.json">/openapi.json</a>.</p></noscript></main></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs-init.js"></script>`,
    html`<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/docs-swagger.css">`,
  ).value;
}

/** A guide rendered from docs/<name>.md; undefined for a name not in GUIDES. */
export async function renderGuidePage(name: string): Promise<string | undefined> {
  const guide = GUIDES.find((g) => g.name === name);
  if (!guide) return undefined;
  const text = await fs.readFile(path.join(DOCS_DIR, `${guide.name}.md`), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  // markdown-it escapes text and (with html: false) any raw markup: its output is safe markup.
  return layout(guide.title, guide.name, html`<main class="guide">${raw(md.render(text))}</main>`).value;
}
