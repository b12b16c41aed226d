import type { DeliveryStatus } from '../../shared/db/tables/monitor-alerts.ts';
import type { MonitorScan } from '../../shared/db/tables/monitor-scans.ts';
import { type Html, html } from '../../shared/html.ts';
import type { SiteWithHistory } from '../../shared/monitoring/history.ts';
import { keyShownOnce } from './auth-pages.ts';
import { band, csrfField, notice, renderPage, scoreBadge, time, type Viewer } from './layout.ts';
import { type ManageView, manageSite } from './site-manage.ts';

// The account console: overview, API keys, account, and for variant A monitoring (audits:
// audits-pages.ts).

const MONITOR_DIMS: [string, string][] = [
  ['seo', 'SEO'],
  ['speed', 'Speed'],
  ['copy', 'Copy'],
  ['social', 'Social'],
  ['local', 'Local'],
  ['competitor', 'Competitor standing'],
  ['ai', 'AI visibility'],
];

export interface AccountInfo {
  email: string;
  variant: 'A' | 'B';
  tier: string;
  plan: string | null;
  createdAt: string;
  notificationPreferences: Record<string, unknown>;
}

export function renderOverview(
  viewer: Viewer,
  d: {
    account: AccountInfo;
    liveKeys: number;
    monitoring: { sites: number; quota: number } | null;
    orders: number;
    /** Variant B: registered sites (agent traffic). */
    agentSites?: number;
    baseUrl: string;
  },
): string {
  const a = d.account;
  const body = html`<h1>Overview</h1>
<div class="cards-grid">
  <section class="card"><h2>API keys</h2><p class="big">${d.liveKeys}</p><p class="muted">live ${d.liveKeys === 1 ? 'key' : 'keys'}</p><p><a href="/console/keys">Manage keys</a></p></section>
  <section class="card"><h2>Plan</h2><p class="big">${a.tier}</p><p class="muted">variant ${a.variant} API tier${a.plan ? html`, ${a.plan} monitoring` : ''}</p><p><a href="/console/account">Account</a></p></section>
  ${
    a.variant === 'A'
      ? html`<section class="card"><h2>Monitoring</h2>${
          d.monitoring
            ? html`<p class="big">${d.monitoring.sites} / ${d.monitoring.quota}</p><p class="muted">sites in use</p><p><a href="/console/sites">See scores</a> · <a href="/console/sites#status-page">Status page</a></p>`
            : html`<p class="muted">No monitoring plan yet. Growth (£29/month) monitors 5 sites weekly; Agency (£59/month) 25 sites daily.</p>`
        }</section>
  <section class="card"><h2>Audits</h2><p class="big">${d.orders}</p><p class="muted">audit ${d.orders === 1 ? 'order' : 'orders'}</p><p><a href="/console/audits">${d.orders ? 'See orders or order one' : 'Order an audit'}</a></p></section>`
      : html`<section class="card"><h2>Agent traffic</h2><p class="big">${d.agentSites ?? 0}</p><p class="muted">registered ${d.agentSites === 1 ? 'site' : 'sites'}</p><p><a href="/console/agent-sites">${d.agentSites ? 'See agent traffic' : 'Register a site'}</a></p></section>`
  }
</div>
<section class="card"><h2>Get started</h2><p>Scan a site with your key:</p><pre class="code"><code>curl -H "Authorization: Bearer $SIGHTLINE_KEY" \\
  "${d.baseUrl}/api/v1/${a.variant === 'A' ? 'scan?url=example.com' : 'account'}"</code></pre><p class="muted">The API is described at <a href="/openapi.json">/openapi.json</a>.</p></section>`;
  return renderPage({ title: 'Console', viewer, section: 'overview' }, body);
}

export interface KeyRow {
  id: string;
  display_prefix: string;
  tier: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export function renderKeys(
  viewer: Viewer,
  keys: KeyRow[],
  flash: { created?: { key: string; prefix: string }; revoked?: string; error?: string } = {},
): string {
  const rows = keys.map(
    (k) => html`<tr${k.revoked_at ? html` class="revoked"` : ''}>
  <th scope="row"><code>${k.display_prefix}</code>…</th>
  <td data-label="Tier">${k.tier}</td>
  <td data-label="Created">${time(k.created_at)}</td>
  <td data-label="Last used">${time(k.last_used_at)}</td>
  <td data-label="Status">${
    k.revoked_at
      ? html`Revoked ${time(k.revoked_at)}`
      : html`<form method="post" action="/console/keys/${k.id}/revoke" class="inline" data-confirm="Revoke the key ${k.display_prefix}…? Programs using it stop working at once.">${csrfField(viewer.csrf)}<button type="submit" class="danger small" aria-label="Revoke key ${k.display_prefix}">Revoke</button></form>`
  }</td>
</tr>`,
  );
  const body = html`<h1>API keys</h1>
${flash.created ? keyShownOnce(flash.created.key, flash.created.prefix) : ''}
${flash.revoked ? notice('ok', html`Key <code>${flash.revoked}</code>… is revoked. Requests with it now get 401.`) : ''}
${flash.error ? notice('error', flash.error) : ''}
<form method="post" action="/console/keys" class="toolbar">${csrfField(viewer.csrf)}<button type="submit">Create a key</button><p class="muted">Keys carry your account’s tier. A key is shown once, when it is made; we keep only a hash.</p></form>
<div class="table-wrap"><table class="data stack">
<caption class="visually-hidden">Your API keys</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Tier</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5" class="muted">No keys yet.</td></tr>`}</tbody>
</table></div>`;
  return renderPage({ title: 'API keys', viewer, section: 'keys' }, body);
}

export function renderAccount(viewer: Viewer, a: AccountInfo, saved = false): string {
  const prefs = a.notificationPreferences;
  const box = (name: string, label: string, hint: string) =>
    html`<div class="check"><input type="checkbox" id="${name}" name="${name}" value="on"${prefs[name] ? html` checked` : ''} aria-describedby="${name}-hint"><label for="${name}">${label}</label><p class="hint" id="${name}-hint">${hint}</p></div>`;
  const body = html`<h1>Account</h1>
${saved ? notice('ok', 'Your notification preferences are saved.') : ''}
<section class="card"><h2>Details</h2><dl class="facts">
  <dt>Email</dt><dd>${a.email}</dd>
  <dt>API variant</dt><dd>${a.variant === 'A' ? 'A (site audit)' : 'B (agent readability)'}</dd>
  <dt>API tier</dt><dd>${a.tier}</dd>
  ${a.variant === 'A' ? html`<dt>Monitoring plan</dt><dd>${a.plan ?? 'none'}</dd>` : ''}
  <dt>Member since</dt><dd>${time(new Date(a.createdAt))}</dd>
</dl><p><a href="/reset">Change your password</a></p></section>
<section class="card"><h2>Notifications</h2><form method="post" action="/console/account/notifications">${csrfField(viewer.csrf)}
<fieldset><legend>Email me</legend>
${box('email_alerts', 'Monitoring alerts', 'When a monitored site’s score drops, it goes down, or it recovers.')}
${box('weekly_digest', 'Weekly digest', 'A summary of your sites’ scores every Monday.')}
</fieldset>
<button type="submit">Save preferences</button></form></section>`;
  return renderPage({ title: 'Account', viewer, section: 'account' }, body);
}

// ---- monitoring (A) ------------------------------------------------------------------------------

/** Chart data for app.js (uPlot): epoch seconds and one series per line; a table carries the same data. */
function chartData(history: MonitorScan[], dims: boolean): string {
  const x = history.map((h) => Math.round(h.scanned_at.getTime() / 1000));
  const series = [{ label: 'Overall', values: history.map((h) => h.overall_score) }];
  if (dims) {
    for (const [id, name] of MONITOR_DIMS) {
      if (history.some((h) => h.dimension_scores[id] !== undefined))
        series.push({ label: name, values: history.map((h) => h.dimension_scores[id] ?? null) as number[] });
    }
  }
  return JSON.stringify({ x, series });
}

function historyTable(id: string, history: MonitorScan[], caption: string): Html {
  const recent = [...history].reverse();
  return html`<details class="history-table"><summary>Scores as a table</summary><div class="table-wrap"><table class="data" id="${id}">
<caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Scanned</th><th scope="col">Status</th><th scope="col">Overall</th>${MONITOR_DIMS.map(([, n]) => html`<th scope="col">${n}</th>`)}</tr></thead>
<tbody>${recent.map(
    (h) =>
      html`<tr><th scope="row">${time(h.scanned_at)}</th><td>${h.status}</td><td>${h.overall_score}</td>${MONITOR_DIMS.map(([d]) => html`<td>${h.dimension_scores[d] ?? '–'}</td>`)}</tr>`,
  )}</tbody></table></div></details>`;
}

function chart(id: string, history: MonitorScan[], label: string, dims: boolean): Html {
  if (history.length === 0) return html`<p class="muted">The chart appears after the first scan.</p>`;
  return html`<figure class="chart-box"><div class="chart" id="${id}" data-chart="${chartData(history, dims)}" role="img" aria-label="${label}: ${history.map((h) => h.overall_score).join(', ')}"></div><figcaption class="muted">${label}, last ${history.length} ${history.length === 1 ? 'scan' : 'scans'}</figcaption></figure>`;
}

export interface AlertRow {
  id: string;
  site_id: string;
  label: string;
  alert_type: string;
  message: string;
  scanned_at: Date;
  delivery_status: DeliveryStatus;
  delivery_detail: string | null;
}

/** What became of the alert's webhook, so a subscriber whose endpoint fails can see why. */
function delivery(a: AlertRow): string {
  switch (a.delivery_status) {
    case 'delivered':
      return 'Webhook delivered';
    case 'failed':
      return `Webhook failed${a.delivery_detail ? `: ${a.delivery_detail}` : ''}`;
    case 'pending':
      return 'Webhook being sent';
    case 'no_webhook':
      return 'No webhook set for this site';
  }
}

function alertList(alerts: AlertRow[]): Html {
  if (alerts.length === 0) return html`<p class="muted">No alerts so far.</p>`;
  return html`<ul class="alerts">${alerts.map(
    (a) =>
      html`<li><span class="badge ${a.alert_type}">${a.alert_type.replace('_', ' ')}</span><span><a href="/console/sites/${a.site_id}">${a.label}</a>: ${a.message}</span>${time(a.scanned_at)}<span class="delivery ${a.delivery_status}">${delivery(a)}</span></li>`,
  )}</ul>`;
}

export function renderNoPlan(viewer: Viewer): string {
  return renderPage(
    { title: 'Monitoring', viewer, section: 'sites' },
    html`<h1>Monitoring</h1><section class="card"><p>Monitoring needs a Growth or Agency plan. Growth (£29 a month) scans 5 sites weekly; Agency (£59 a month) scans 25 sites daily. Both alert you when scores change and give you a public status page.</p><p><a class="button" href="/checkout/plan/growth?email=${encodeURIComponent(viewer.email)}">Buy Growth</a> <a class="button" href="/checkout/plan/agency?email=${encodeURIComponent(viewer.email)}">Buy Agency</a></p><p class="muted">Pay with the email you signed in with (${viewer.email}): the plan is then set on this account.</p></section>`,
  );
}

export function renderSites(
  viewer: Viewer,
  d: {
    sites: SiteWithHistory[];
    quota: number;
    plan: string;
    scanFrequency: string;
    /** The live link is stored hashed: its prefix, and the full URL only right after a rotation. */
    statusPage: { prefix: string; newUrl?: string };
    alerts: AlertRow[];
    form?: {
      url?: string;
      label?: string;
      siteType?: string;
      error?: string;
      added?: string;
      removed?: boolean;
    };
  },
): string {
  const f = d.form ?? {};
  const cards = d.sites.map(({ site, history }) => {
    const latest = history.at(-1);
    return html`<article class="card site">
  <header class="site-head">${scoreBadge(latest?.overall_score, 'Overall score')}<div><h3><a href="/console/sites/${site.id}">${site.label}</a> <span class="pill ${site.site_type}">${site.site_type === 'own' ? 'Your site' : 'Competitor'}</span>${latest?.status === 'down' ? html` <span class="pill down">Down</span>` : ''}</h3><p class="muted break">${site.url}</p><p class="muted small-text">Last scanned ${time(site.last_scanned_at, 'not yet')} · next due ${time(site.next_scan_due_at)}</p></div></header>
  ${chart(`chart-${site.id}`, history, `Overall score of ${site.label}`, false)}
</article>`;
  });
  const body = html`<h1>Monitoring</h1>
<p class="muted">${d.plan} plan · ${d.scanFrequency} scans · ${d.sites.length} of ${d.quota} sites</p>
<section class="card" id="status-page" aria-labelledby="status-title"><h2 id="status-title">Public status page</h2>
${
  d.statusPage.newUrl
    ? notice(
        'ok',
        html`Your new status page link (shown once; the old one no longer works): <a href="${d.statusPage.newUrl}" class="break">${d.statusPage.newUrl}</a>`,
      )
    : html`<p class="muted">The live link starts <code>/status/${d.statusPage.prefix}…</code>. Links are stored like keys, so the full link is shown only when it is made.</p>`
}
<form method="post" action="/console/sites/status-link">${csrfField(viewer.csrf)}<button type="submit">New status page link</button></form></section>
${f.added ? notice('ok', html`Added ${f.added}. Its first scan starts within a minute.`) : ''}${f.removed ? notice('ok', 'Site removed, with its history and alerts.') : ''}
<section class="sites">${cards.length ? cards : html`<p class="muted">No sites yet: add your first below.</p>`}</section>
<section class="card" aria-labelledby="add-title"><h2 id="add-title">Add a site</h2>
${f.error ? notice('error', f.error) : ''}
<form method="post" action="/console/sites" class="grid-form">${csrfField(viewer.csrf)}
<div class="field"><label for="site-url">Address</label><input id="site-url" name="url" type="text" inputmode="url" required value="${f.url ?? ''}"></div>
<div class="field"><label for="site-label">Label <span class="muted">(optional)</span></label><input id="site-label" name="label" type="text" maxlength="100" value="${f.label ?? ''}"></div>
<div class="field"><label for="site-type">Kind</label><select id="site-type" name="site_type"><option value="own"${f.siteType !== 'competitor' ? html` selected` : ''}>Your site</option><option value="competitor"${f.siteType === 'competitor' ? html` selected` : ''}>Competitor</option></select></div>
<button type="submit">Add site</button></form></section>
<section aria-labelledby="alerts-title"><h2 id="alerts-title">Recent alerts</h2>${alertList(d.alerts)}</section>`;
  return renderPage({ title: 'Monitoring', viewer, section: 'sites', assets: ['uplot'] }, body);
}

export function renderSite(
  viewer: Viewer,
  d: SiteWithHistory & { alerts: AlertRow[] },
  manage: ManageView = {},
): string {
  const { site, history } = d;
  const latest = history.at(-1);
  const dims = latest
    ? html`<ul class="dim-list" aria-label="Latest scores by dimension">${MONITOR_DIMS.filter(
        ([id]) => latest.dimension_scores[id] !== undefined,
      ).map(([id, name]) => {
        const v = latest.dimension_scores[id]!;
        return html`<li><span class="dim-name">${name}</span><span class="score ${band(v)}">${v}</span></li>`;
      })}</ul>`
    : html`<p class="muted">Not scanned yet: the first scan is due ${time(site.next_scan_due_at)}.</p>`;
  const body = html`<p class="crumbs"><a href="/console/sites">Monitoring</a> › ${site.label}</p>
<h1>${site.label}</h1>
<p><a href="/console/sites/${site.id}/geo">GEO: answer-engine visibility, checks and prompts</a></p>
<p class="muted break"><a href="${site.url}" rel="nofollow noopener noreferrer">${site.url}</a> · ${site.site_type === 'own' ? 'your site' : 'competitor'} · alert threshold ${site.alert_threshold} points</p>
<section class="card"><h2>Latest scores ${scoreBadge(latest?.overall_score, 'Overall score')}</h2><p class="muted small-text">Scored with the monitoring model. <a href="/docs/guides/scoring#which-score-is-which">Why the free scan shows a different number</a></p>${dims}
${latest?.issues.length ? html`<h3 class="sub">Issues</h3><ul class="findings issues">${latest.issues.map((i) => html`<li>${i}</li>`)}</ul>` : ''}</section>
<section class="card"><h2>Score history</h2>${chart(`chart-site-${site.id}`, history, `Scores of ${site.label}`, true)}${history.length ? historyTable(`table-site-${site.id}`, history, `Scores of ${site.label}`) : ''}</section>
${site.site_type === 'own' ? html`<section aria-labelledby="alerts-title"><h2 id="alerts-title">Alerts</h2>${alertList(d.alerts)}</section>` : ''}
${manageSite(viewer, site, manage)}`;
  return renderPage({ title: site.label, viewer, section: 'sites', assets: ['uplot'] }, body);
}

export function renderNotFound(viewer: Viewer | null): string {
  return renderPage(
    { title: 'Not found', viewer },
    html`<section class="auth card"><h1>Not found</h1><p>There is nothing at this address${viewer ? ' in your account' : ''}.</p><p><a href="${viewer ? '/console' : '/'}">${viewer ? 'Back to the console' : 'Back to the start'}</a></p></section>`,
  );
}
