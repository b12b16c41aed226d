import { type Html, html } from '../../shared/html.ts';

// The shell every console and free-scan page shares: one stylesheet and one script, both served
// from /assets by this server (never a CDN), under a CSP that allows nothing else. Pages work
// without the script; it only adds live progress, charts and copy buttons.

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** PAGE_CSP for a page whose form is answered with a redirect to another origin (Stripe Checkout). */
export const pageCspPostingTo = (origin: string) =>
  PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${origin}`);

export interface Viewer {
  email: string;
  variant: 'A' | 'B';
  csrf: string;
}

export interface PageOptions {
  title: string;
  /** Signed in: the console navigation and the sign-out form. */
  viewer?: Viewer | null;
  /** Which console tab is current. */
  section?: string;
  /** Extra <head> markup (e.g. a no-script refresh). */
  head?: Html;
  /** Extra stylesheets/scripts served from /assets (e.g. the chart library). */
  assets?: 'uplot'[];
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

function consoleNav(viewer: Viewer, section: string | undefined): Html {
  const items: [string, string, string][] = [
    ['overview', '/console', 'Overview'],
    ['keys', '/console/keys', 'API keys'],
    ...(viewer.variant === 'A'
      ? ([
          ['sites', '/console/sites', 'Monitoring'],
          ['audits', '/console/audits', 'Audits'],
        ] as [string, string, string][])
      : ([
          ['agent-sites', '/console/agent-sites', 'Agent traffic'],
          ['webhooks', '/console/webhooks', 'Webhooks'],
        ] as [string, string, string][])),
    ['account', '/console/account', 'Account'],
  ];
  return html`<nav class="tabs" aria-label="Console">${items.map(
    ([id, href, label]) =>
      html`<a href="${href}"${id === section ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>`;
}

export function renderPage(opts: PageOptions, body: Html): string {
  const v = opts.viewer;
  const account = v
    ? html`<div class="who"><span class="who-email">${v.email}</span><form method="post" action="/signout">${csrfField(v.csrf)}<button class="link-button" type="submit">Sign out</button></form></div>`
    : html`<div class="who"><a href="/signin">Sign in</a><a class="button small" href="/signup">Sign up</a></div>`;
  const extra = (opts.assets ?? []).map((a) =>
    a === 'uplot'
      ? html`<link rel="stylesheet" href="/assets/uplot.css"><script src="/assets/uplot.js" defer></script>`
      : '',
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · Sightline</title>
<meta name="description" content="Sightline scans websites for SEO, speed, security, accessibility, mobile, content and conversion, and for how well AI agents can read them.">
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
${extra}
<script src="/assets/app.js" defer></script>
${opts.head ?? ''}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/"><span class="logo" aria-hidden="true"></span>Sightline</a>
  ${account}
</header>
${v ? consoleNav(v, opts.section) : ''}
<main id="main">
${body}
</main>
<footer class="foot"><a href="/">Free scan</a><a href="/docs">API reference and guides</a><a href="/docs#reference">OpenAPI</a><a href="/mcp">MCP endpoint</a><a href="/status">Service status</a></footer>
</body>
</html>`.value;
}

// ---- small formatting helpers shared by the pages ----------------------------------------------

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

export function utc(d: Date | number | string): string {
  const x = new Date(d);
  return `${x.getUTCDate()} ${MONTHS[x.getUTCMonth()]} ${x.getUTCFullYear()}, ${pad(x.getUTCHours())}:${pad(x.getUTCMinutes())} UTC`;
}

export const time = (d: Date | null | undefined, empty = 'never') =>
  d ? html`<time datetime="${d.toISOString()}">${utc(d)}</time>` : html`<span class="muted">${empty}</span>`;

/** Lighthouse's bands: 90-100 good, 50-89 needs work, 0-49 poor. */
export const band = (score: number) => (score >= 90 ? 'good' : score >= 50 ? 'fair' : 'poor');

export function scoreBadge(score: number | null | undefined, label?: string): Html {
  if (score === null || score === undefined) return html`<span class="score none">–</span>`;
  return html`<span class="score ${band(score)}"${label ? html` aria-label="${label} ${score} out of 100"` : ''}>${score}</span>`;
}

/** A notice box: role=status for good news, role=alert for problems. */
export function notice(kind: 'ok' | 'error' | 'info', text: Html | string): Html {
  return html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}

export function fieldError(id: string, message: string | undefined): Html {
  return message ? html`<p class="field-error" id="${id}-error">${message}</p>` : html``;
}
