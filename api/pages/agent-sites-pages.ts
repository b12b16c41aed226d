import type { SiteScanSummary } from '../../shared/agent-sites/sites.ts';
import type { siteInsights } from '../../shared/agent-traffic/insights.ts';
import type {
  siteAgents,
  siteDailyByPlatform,
  sitePages,
  siteStats,
} from '../../shared/agent-traffic/stats.ts';
import type { TrafficFilter } from '../../shared/agent-traffic/traffic-filter.ts';
import type { AgentDataFreshness } from '../../shared/agent-verification/sources-age.ts';
import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';
import { type Html, html } from '../../shared/html.ts';
import type { ModelScore } from '../../shared/scan-engine/engine.ts';
import {
  type DashboardQuery,
  type DashboardRange,
  dashboardSearch,
  type FilterKey,
  PRESET_DAYS,
  parseDashboardQuery,
} from './dashboard-query.ts';
import { band, csrfField, notice, renderPage, scoreBadge, time, type Viewer } from './layout.ts';

// Variant B console pages: registered sites (tracking id, ingest token shown once, copy-paste
// snippets), each site's agent-traffic dashboard and its latest agent-readability scan. The data
// comes from the same shared/agent-traffic functions as GET /api/v1/sites/:id/{stats,agents,pages,insights}.

type Stats = Awaited<ReturnType<typeof siteStats>>;
type Agents = Awaited<ReturnType<typeof siteAgents>>;
type Pages = Awaited<ReturnType<typeof sitePages>>;
type Insights = Awaited<ReturnType<typeof siteInsights>>;
type DailyByPlatform = Awaited<ReturnType<typeof siteDailyByPlatform>>;

/** Thousands separators, so 1000 reads "1,000" (tests strip them). */
export const num = (n: number) => n.toLocaleString('en-GB');
const pct = (n: number) => `${n}%`;

const SAMPLE_UA =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';

/** A copyable code block: focusable, since it scrolls sideways on a phone. */
function codeBlock(id: string, label: string, code: string): Html {
  return html`<div class="snippet"><div class="snippet-head"><h3 class="sub" id="${id}-h">${label}</h3><button type="button" class="secondary small" data-copy-text="${id}">Copy</button></div><pre class="code" id="${id}" tabindex="0" aria-labelledby="${id}-h"><code>${code}</code></pre></div>`;
}

/** Copy-paste recipes for POST /api/v1/collect and `sightline logs import` (docs/agent-analytics.md). */
export function snippets(d: { baseUrl: string; trackingId: string; token?: string; now: string }): Html {
  const token = d.token ?? '$SIGHTLINE_INGEST_TOKEN';
  const curl = `curl -X POST "${d.baseUrl}/api/v1/collect" \\
  -H "Authorization: Bearer ${token}" \\
  -H "Content-Type: application/json" \\
  -d '{"site":"${d.trackingId}","requests":[{"time":"${d.now}",
       "method":"GET","path":"/pricing","status":200,"ip":"132.196.86.10",
       "user_agent":"${SAMPLE_UA}"}]}'`;
  const env = `SIGHTLINE_SITE=${d.trackingId}
SIGHTLINE_INGEST_TOKEN=${d.token ?? 'sit_…'}`;
  const express = `// Express (Koa: ctx.method, ctx.originalUrl, ctx.status, ctx.ip after await next())
const queue = [];
app.use((req, res, next) => {
  res.on('finish', () => queue.push({
    time: Date.now(), method: req.method, path: req.originalUrl ?? req.url,
    status: res.statusCode, ip: req.ip, user_agent: req.get('user-agent') ?? '',
    referer: req.get('referer') ?? null,
    headers: pick(req.headers, ['signature', 'signature-input', 'signature-agent']),
  }));
  next();
});
setInterval(async () => {
  while (queue.length) {
    const requests = queue.splice(0, 1000);
    await fetch('${d.baseUrl}/api/v1/collect', {
      method: 'POST',
      headers: {
        authorization: \`Bearer \${process.env.SIGHTLINE_INGEST_TOKEN}\`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ site: process.env.SIGHTLINE_SITE, requests }),
    }).catch(() => queue.unshift(...requests)); // re-sending is idempotent
  }
}, 5000);
const pick = (h, names) =>
  Object.fromEntries(names.filter((n) => h[n]).map((n) => [n, String(h[n])]));`;
  const logs = `# on the Sightline host: nginx "combined" logs, Caddy JSON logs, gzip or stdin
sightline logs import --site ${d.trackingId} /var/log/nginx/access.log.1
sightline logs import --site ${d.trackingId} --format json /var/log/caddy/access.log
zcat /var/log/nginx/access.log.*.gz | sightline logs import --site ${d.trackingId} -`;
  return html`<p>Send every request your server answers, from the server (never from the browser), in batches of up to 1,000. Re-sending a batch stores nothing twice. Agents are recognised and verified here; people and other bots are counted and dropped.</p>
${codeBlock('snippet-curl', 'Try it with curl', curl)}
${codeBlock('snippet-env', 'Environment for your server', env)}
${codeBlock('snippet-express', 'Express or Koa middleware', express)}
${codeBlock('snippet-logs', 'Or import access logs', logs)}
<p class="muted">More recipes (Next.js, Cloudflare Workers, log formats) are in the agent-analytics guide.</p>`;
}

/**
 * The notice an operator's data is getting old: the catalogue snapshot or a verification source
 * older than the stale limit names fewer agents and verifies from ranges vendors may have moved.
 */
export function staleDataNotice(f: AgentDataFreshness | null | undefined): Html | string {
  if (!f?.stale) return '';
  const stale = [f.catalogue, ...f.verificationSources].filter((s) => s.stale);
  const names = stale.map((s) => html`<code>${s.source}</code> (${s.ageDays} days)`);
  const list = names.flatMap((n, i) => (i === 0 ? [n] : [html`, `, n]));
  return notice(
    'info',
    html`<strong>Agent data is older than ${f.staleAfterDays} days:</strong> ${list}. Agents that appeared since may be unnamed and verification may miss new vendor addresses; the operator refreshes them with <code>sightline agents sync</code> (or <code>sightline agents ranges sync --from</code>).`,
  );
}

export interface AgentSiteRow {
  site: AgentSite;
  scan: SiteScanSummary | undefined;
}

export function renderAgentSites(
  viewer: Viewer,
  d: {
    sites: AgentSiteRow[];
    baseUrl: string;
    now: string;
    form?: { url?: string; label?: string; error?: string };
    registered?: { site: AgentSite; token: string };
    removed?: string;
    freshness?: AgentDataFreshness | null;
  },
): string {
  const f = d.form ?? {};
  const rows = d.sites.map(
    ({ site, scan }) =>
      html`<tr><th scope="row"><a href="/console/agent-sites/${site.id}">${site.label}</a></th><td data-label="Address" class="break">${site.url}</td><td data-label="Tracking id"><code>${site.tracking_id}</code></td><td data-label="Ingest token"><code>${site.ingest_token_prefix}</code>…</td><td data-label="Agent readability">${scan?.overallScore != null ? html`${scoreBadge(scan.overallScore, 'Agent readability')} ${scan.grade ?? ''}` : html`<span class="muted">not scanned yet</span>`}</td><td data-label="Registered">${time(site.created_at)}</td></tr>`,
  );
  const reg = d.registered;
  const shownOnce = reg
    ? html`<section class="key-once" role="status" aria-labelledby="registered-title">
<h2 id="registered-title">${reg.site.label} is registered</h2>
<p><strong>Copy the ingest token now: it is shown only this once.</strong> We keep only a hash; the console lists its prefix, <code>${reg.site.ingest_token_prefix}</code>.</p>
<dl class="facts"><dt>Tracking id</dt><dd><code>${reg.site.tracking_id}</code></dd></dl>
<p class="token-label"><label for="ingest-token">Ingest token</label></p><div class="row"><input id="ingest-token" class="mono" type="text" readonly value="${reg.token}"><button type="button" class="secondary" data-copy="ingest-token">Copy</button></div>
${snippets({ baseUrl: d.baseUrl, trackingId: reg.site.tracking_id, token: reg.token, now: d.now })}
<p><a class="button" href="/console/agent-sites/${reg.site.id}">Open the dashboard</a></p>
</section>`
    : '';
  const body = html`<h1>Agent traffic</h1>
<p class="muted">Which AI agents read your sites, how often, which pages, and whether each is who it claims to be.</p>
${staleDataNotice(d.freshness)}
${shownOnce}
${d.removed ? notice('ok', html`${d.removed} and all its agent traffic are removed. Its ingest token no longer works.`) : ''}
<div class="table-wrap"><table class="data stack" data-page-size="20">
<caption class="visually-hidden">Your registered sites</caption>
<thead><tr><th scope="col">Site</th><th scope="col">Address</th><th scope="col">Tracking id</th><th scope="col">Ingest token</th><th scope="col">Agent readability</th><th scope="col">Registered</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">No sites yet: register your first below.</td></tr>`}</tbody>
</table></div>
<section class="card" aria-labelledby="register-title"><h2 id="register-title">Register a site</h2>
${f.error ? notice('error', f.error) : ''}
<form method="post" action="/console/agent-sites" class="grid-form">${csrfField(viewer.csrf)}
<div class="field"><label for="site-url">Address</label><input id="site-url" name="url" type="text" inputmode="url" required placeholder="https://shop.example.com" value="${f.url ?? ''}"></div>
<div class="field"><label for="site-label">Label <span class="muted">(optional)</span></label><input id="site-label" name="label" type="text" maxlength="200" value="${f.label ?? ''}"></div>
<button type="submit">Register site</button></form>
<p class="muted">You get a tracking id and an ingest token for <code>POST /api/v1/collect</code>.</p></section>`;
  return renderPage({ title: 'Agent traffic', viewer, section: 'agent-sites' }, body);
}

// ---- one site's dashboard --------------------------------------------------------------------

const TOP_PLATFORMS = 6;

/** Chart data for app.js (uPlot): one line per platform (the smaller ones folded into Other). */
function platformSeries(stats: Stats, daily: DailyByPlatform) {
  const ranked = stats.platforms.map((p) => p.platform);
  const shown = ranked.length > TOP_PLATFORMS ? ranked.slice(0, TOP_PLATFORMS - 1) : ranked;
  const folded = ranked.length > shown.length;
  const names = folded ? [...shown, 'Other platforms'] : shown;
  const byDay = new Map<string, Map<string, number>>();
  for (const r of daily) {
    const name = shown.includes(r.platform) ? r.platform : 'Other platforms';
    const m = byDay.get(r.date) ?? new Map<string, number>();
    m.set(name, (m.get(name) ?? 0) + r.visits);
    byDay.set(r.date, m);
  }
  const days = stats.daily.map((d) => ({
    date: d.date,
    covered: d.covered,
    values: names.map((n) => (d.covered ? (byDay.get(d.date)?.get(n) ?? 0) : null)),
    total: d.visits,
  }));
  return { names, days };
}

const daySecs = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / 1000);

function visitsChart(stats: Stats, daily: DailyByPlatform, label: string, view: DashboardView): Html {
  if (stats.visits === 0)
    return html`<p class="muted">No agent visits ${view.filtered ? 'match the filters ' : ''}in ${view.rangeText} yet. Send requests with the snippets below, or import a log.</p>`;
  const { names, days } = platformSeries(stats, daily);
  const x = days.map((d) => daySecs(d.date));
  const data = JSON.stringify({
    y: 'count',
    x,
    // A chosen range is the axis (first to last day), whatever days have data.
    ...(view.chosen && x.length ? { xRange: [x[0], x[x.length - 1]] } : {}),
    series: names.map((n, i) => ({ label: n, values: days.map((d) => d.values[i]) })),
  });
  const covered = days.filter((d) => d.covered);
  const totals = names.map((_, i) => covered.reduce((n, d) => n + (d.values[i] ?? 0), 0));
  return html`<figure class="chart-box"><div class="chart" id="chart-visits" data-chart="${data}" role="img" aria-label="${label}: ${names.map((n, i) => `${n} ${totals[i]}`).join(', ')}"></div><figcaption class="muted">Agent visits per day by platform, ${view.rangeText} (UTC). Days without data are gaps, not zero.</figcaption></figure>
<details class="history-table"><summary>Visits per day as a table</summary><div class="table-wrap" tabindex="0" role="region" aria-label="Visits per day by platform"><table class="data" id="table-visits">
<caption class="visually-hidden">Agent visits per day by platform</caption>
<thead><tr><th scope="col">Day</th>${names.map((n) => html`<th scope="col">${n}</th>`)}<th scope="col">Total</th></tr></thead>
<tbody>${dayRows(days, names.length)}</tbody>
<tfoot><tr><th scope="row">Total</th>${totals.map((v) => html`<td>${num(v)}</td>`)}<td>${num(stats.visits)}</td></tr></tfoot>
</table></div></details>`;
}

/** Newest day first; a run of days without data is one row ("from – to: no data"). */
function dayRows(days: ReturnType<typeof platformSeries>['days'], columns: number): Html[] {
  const out: Html[] = [];
  const list = [...days].reverse();
  for (let i = 0; i < list.length; i++) {
    const d = list[i]!;
    if (d.covered) {
      out.push(
        html`<tr><th scope="row">${d.date}</th>${d.values.map((v) => html`<td>${num(v ?? 0)}</td>`)}<td>${num(d.total ?? 0)}</td></tr>`,
      );
      continue;
    }
    let j = i;
    while (j + 1 < list.length && !list[j + 1]!.covered) j++;
    const span = j === i ? d.date : `${list[j]!.date} – ${d.date}`;
    out.push(
      html`<tr class="gap"><th scope="row">${span}</th><td colspan="${columns + 1}" class="muted">no data</td></tr>`,
    );
    i = j;
  }
  return out;
}

const TYPE_NAMES: Record<string, string> = {
  training: 'Training crawlers',
  search: 'Search indexers',
  browse: 'Live fetches for users',
  unknown: 'Unknown',
};

function shareBar(share: number): Html {
  const w = Math.max(0, Math.min(100, share));
  return html`<svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect class="bar-track" width="100" height="8" rx="4"/><rect class="bar-fill share" width="${w}" height="8" rx="4"/></svg>`;
}

function splitTables(stats: Stats): Html {
  const types = html`<section class="card" aria-labelledby="types-title"><h2 id="types-title">By type</h2>
<div class="table-wrap"><table class="data" id="table-types"><caption class="visually-hidden">Agent visits by type</caption>
<thead><tr><th scope="col">Type</th><th scope="col">Visits</th><th scope="col">Share</th></tr></thead>
<tbody>${stats.types.map((t) => html`<tr><th scope="row">${TYPE_NAMES[t.type] ?? t.type}</th><td>${num(t.visits)}</td><td class="share">${pct(t.share)} ${shareBar(t.share)}</td></tr>`)}</tbody></table></div></section>`;
  const v = stats.verification;
  const verification = html`<section class="card" aria-labelledby="verified-title"><h2 id="verified-title">Verified share</h2>
<p class="big" id="verified-share">${pct(stats.verifiedShare)}</p><p class="muted">${num(stats.verifiedVisits)} of ${num(stats.visits)} visits proved who they are (signature, vendor IP range or reverse DNS).</p>
<div class="table-wrap"><table class="data" id="table-verification"><caption class="visually-hidden">Visits by verification</caption>
<thead><tr><th scope="col">Verification</th><th scope="col">Visits</th></tr></thead>
<tbody>
<tr><th scope="row">Web Bot Auth signature</th><td>${num(v.signature)}</td></tr>
<tr><th scope="row">Vendor IP range</th><td>${num(v.ip)}</td></tr>
<tr><th scope="row">Reverse DNS</th><td>${num(v.rdns)}</td></tr>
<tr><th scope="row">No check offered</th><td>${num(v.none)}</td></tr>
<tr><th scope="row">Reverse DNS pending</th><td>${num(v.pending)}</td></tr>
<tr><th scope="row">Unverified (DNS did not answer; retried)</th><td>${num(v.unverified)}</td></tr>
<tr><th scope="row">Spoofed</th><td>${num(v.spoofed)}</td></tr>
</tbody></table></div></section>`;
  const platforms = html`<section class="card" aria-labelledby="platforms-title"><h2 id="platforms-title">By platform</h2>
<div class="table-wrap"><table class="data" id="table-platforms"><caption class="visually-hidden">Agent visits by platform</caption>
<thead><tr><th scope="col">Platform</th><th scope="col">Visits</th><th scope="col">Share</th><th scope="col">Verified</th></tr></thead>
<tbody>${stats.platforms.map((p) => html`<tr><th scope="row">${p.platform}</th><td>${num(p.visits)}</td><td>${pct(p.share)}</td><td>${pct(p.verifiedShare)}</td></tr>`)}</tbody></table></div></section>`;
  return html`${platforms}<div class="cards-grid wide">${types}${verification}</div>`;
}

function agentsTable(agents: Agents, view: DashboardView): Html {
  const rows = agents.platforms.flatMap((p) =>
    p.agents.map(
      (a) =>
        html`<tr><th scope="row">${a.agent ? filterLink(view, 'agent', a.agent, a.agent) : 'Unnamed AI agent'}</th><td data-label="Platform">${p.platform}</td><td data-label="Type">${a.type ?? '–'}</td><td data-label="Visits">${num(a.visits)}</td><td data-label="Share">${pct(a.share)}</td><td data-label="Verified">${pct(a.verifiedShare)}${a.verification.spoofed ? html` <span class="pill down">${num(a.verification.spoofed)} spoofed</span>` : ''}</td><td data-label="Last seen">${time(new Date(a.lastSeen))}</td></tr>`,
    ),
  );
  return html`<section aria-labelledby="agents-title"><h2 id="agents-title">Agents</h2>
<div class="table-wrap"><table class="data stack" id="table-agents" data-page-size="10"><caption class="visually-hidden">Agent visits by agent</caption>
<thead><tr><th scope="col">Agent</th><th scope="col">Platform</th><th scope="col">Type</th><th scope="col">Visits</th><th scope="col">Share</th><th scope="col">Verified</th><th scope="col">Last seen</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7" class="muted">No agents seen yet.</td></tr>`}</tbody></table></div></section>`;
}

function pagesTable(pages: Pages, view: DashboardView): Html {
  const rows = pages.pages.map(
    (p) =>
      html`<tr><th scope="row" class="break">${filterLink(view, 'page', p.path, p.path)}</th><td data-label="Visits">${num(p.visits)}</td><td data-label="Errors">${num(p.errors)}</td><td data-label="Not found">${num(p.notFound)}</td><td data-label="Citability">${p.citability ? html`<span class="score ${band(p.citability.score)}">${p.citability.score}</span>` : html`<span class="muted">not scanned</span>`}</td></tr>`,
  );
  return html`<section aria-labelledby="pages-title"><h2 id="pages-title">Top pages</h2>
<div class="table-wrap"><table class="data stack" id="table-pages" data-page-size="10"><caption class="visually-hidden">Pages ranked by agent visits</caption>
<thead><tr><th scope="col">Page</th><th scope="col">Visits</th><th scope="col">Errors</th><th scope="col">Not found</th><th scope="col">Citability</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5" class="muted">No pages yet.</td></tr>`}</tbody></table></div></section>`;
}

function insightList(insights: Insights): Html {
  if (insights.insights.length === 0)
    return html`<p class="muted">Nothing to fix from the traffic so far.</p>`;
  return html`<ul class="insights">${insights.insights.map(
    (i) =>
      html`<li class="card"><h3 class="sub"><span class="badge ${i.priority}">${i.priority}</span> ${i.title}</h3><p>${i.evidence}</p><p><strong>Fix:</strong> ${i.fix}</p></li>`,
  )}</ul>`;
}

export interface CitabilityView {
  /** Only when this account ran the scan: a scan id is the secret link to its report. */
  scanId: string | null;
  scannedAt: Date;
  result: ModelScore;
}

function citability(site: AgentSite, c: CitabilityView | null): Html {
  if (!c)
    return html`<p>Not scanned yet. <a href="/console/agent-sites/${site.id}/citability">Scan ${site.domain} now</a> (counted against your account’s hourly calls; its agent-readability result appears here).</p>`;
  const r = c.result;
  return html`<div class="site-head">${scoreBadge(r.overallScore, 'Agent readability')}<div><p><strong>Grade ${r.grade}</strong>, methodology ${r.modelVersion}</p><p class="muted small-text">Scanned ${time(c.scannedAt)} · ${c.scanId ? html`<a href="/r/${c.scanId}">Full report</a> · <a href="/console/agent-sites/${site.id}/citability">Scan again</a>` : html`<a href="/console/agent-sites/${site.id}/citability">Scan it again</a> for your own report`}</p></div></div>
<ul class="dim-list" aria-label="Agent readability by dimension">${r.dimensions.map(
    (d) =>
      html`<li><span class="dim-name">${d.name} <span class="muted">${Math.round(d.weight * 100)}%</span></span>${d.score === null ? html`<span class="score none">–</span>` : html`<span class="score ${band(d.score)}">${d.score}</span>`}</li>`,
  )}</ul>`;
}

/** AI referrals (people sent by answer engines) by referrer, each a filter link. */
function referrersTable(stats: Stats, view: DashboardView): Html {
  const rows = stats.aiReferrals.platforms.map(
    (r) =>
      html`<tr><th scope="row">${filterLink(view, 'referrer', r.platform, r.platform)}</th><td data-label="Visits">${num(r.visits)}</td></tr>`,
  );
  return html`<section aria-labelledby="referrers-title"><h2 id="referrers-title">AI referrers</h2>
<div class="table-wrap"><table class="data stack" id="table-referrers" data-page-size="10"><caption class="visually-hidden">People sent by answer engines, by referrer</caption>
<thead><tr><th scope="col">Referrer</th><th scope="col">Visits</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="2" class="muted">No AI referrals ${view.filtered ? 'match the filters ' : ''}in ${view.rangeText}.</td></tr>`}</tbody></table></div></section>`;
}

// ---- the dashboard's range and filters (the address is the state) ---------------------------

export interface DashboardView {
  siteId: string;
  range: DashboardRange;
  filter: TrafficFilter;
  chosen: boolean;
  filtered: boolean;
  /** "the last 30 days" or "21 Nov – 28 Nov 2026" */
  rangeText: string;
  /** The window's first and last UTC days (YYYY-MM-DD). */
  from: string;
  to: string;
}

const FILTER_LABELS: Record<FilterKey, string> = { agent: 'Agent', page: 'Page', referrer: 'Referrer' };
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const dayText = (d: string, year = true) =>
  `${Number(d.slice(8, 10))} ${MONTHS[Number(d.slice(5, 7)) - 1]}${year ? ` ${d.slice(0, 4)}` : ''}`;

function dashboardView(siteId: string, q: DashboardQuery, stats: Stats): DashboardView {
  const from = stats.since.slice(0, 10);
  const to = stats.until.slice(0, 10);
  const span = `${dayText(from, from.slice(0, 4) !== to.slice(0, 4))} – ${dayText(to)}`;
  return {
    siteId,
    range: q.range,
    filter: q.filter,
    chosen: q.chosen,
    filtered: Object.values(q.filter).some(Boolean),
    rangeText: q.range.kind === 'preset' ? `the last ${q.range.days} days` : span,
    from,
    to,
  };
}

const dashboardHref = (view: DashboardView, range: DashboardRange, filter: TrafficFilter) =>
  `/console/agent-sites/${view.siteId}${dashboardSearch(range, filter)}`;

/** A table entry that filters the whole dashboard to it (its chip already on: no link). */
function filterLink(view: DashboardView, key: FilterKey, value: string, text: string): Html {
  if (view.filter[key] === value) return html`<strong>${text}</strong>`;
  const href = dashboardHref(view, view.range, { ...view.filter, [key]: value });
  return html`<a href="${href}" data-filter="${key}" title="Show only ${FILTER_LABELS[key].toLowerCase()} ${value}">${text}</a>`;
}

/** The active filters as chips, each a link that removes it, and one that clears them all. */
function filterChips(view: DashboardView): Html | string {
  const active = (Object.keys(FILTER_LABELS) as FilterKey[]).filter((k) => view.filter[k]);
  if (!active.length) return '';
  const chips = active.map((k) => {
    const rest = { ...view.filter, [k]: undefined };
    return html`<li class="filter-chip"><span class="break">${FILTER_LABELS[k]}: <strong>${view.filter[k]}</strong></span> <a href="${dashboardHref(view, view.range, rest)}" aria-label="Remove the filter ${FILTER_LABELS[k].toLowerCase()} ${view.filter[k]}" data-remove-filter="${k}">×</a></li>`;
  });
  const clear =
    active.length > 1
      ? html`<li class="filter-chip clear"><a href="${dashboardHref(view, view.range, {})}">Clear all filters</a></li>`
      : '';
  return html`<ul class="chips filters" aria-label="Filters">${chips}${clear}</ul>`;
}

/** The range picker: preset links and a custom from/to form (GET, so it works without JS). */
function rangePicker(view: DashboardView): Html {
  const presets = PRESET_DAYS.map((days) => {
    const current = view.range.kind === 'preset' && view.range.days === days;
    return html`<a href="${dashboardHref(view, { kind: 'preset', days }, view.filter)}"${current ? html` aria-current="page"` : ''}>${days} days</a>`;
  });
  const custom = view.range.kind === 'custom';
  const kept = (Object.keys(FILTER_LABELS) as FilterKey[])
    .filter((k) => view.filter[k])
    .map((k) => html`<input type="hidden" name="${k}" value="${view.filter[k]}">`);
  return html`<section class="card range" aria-labelledby="range-title"><h2 id="range-title">Date range</h2>
<p id="range-shown"><strong>${custom ? view.rangeText : `Last ${view.range.kind === 'preset' ? view.range.days : ''} days`}</strong> <span class="muted">(${dayText(view.from)} – ${dayText(view.to)}, UTC)</span></p>
<nav class="tabs range-presets" aria-label="Date range">${presets}${custom ? html`<a href="#range-custom" aria-current="page">Custom</a>` : ''}</nav>
<form method="get" action="/console/agent-sites/${view.siteId}" class="grid-form" id="range-custom" aria-label="Custom range">
<div class="field"><label for="range-from">From</label><input id="range-from" name="from" type="date" required value="${view.from}"></div>
<div class="field"><label for="range-to">To</label><input id="range-to" name="to" type="date" required value="${view.to}"></div>
${kept}<button type="submit" class="secondary">Show range</button></form></section>`;
}

export function renderAgentSite(
  viewer: Viewer,
  d: {
    site: AgentSite;
    stats: Stats;
    daily: DailyByPlatform;
    agents: Agents;
    pages: Pages;
    insights: Insights;
    scan: CitabilityView | null;
    baseUrl: string;
    freshness?: AgentDataFreshness | null;
    /** The range and filters asked for (default: 30 days, no filters). */
    query?: DashboardQuery;
  },
): string {
  const { site, stats } = d;
  const query = d.query ?? parseDashboardQuery({});
  const view = dashboardView(site.id, query, stats);
  const body = html`<p class="crumbs"><a href="/console/agent-sites">Agent traffic</a> › ${site.label}</p>
<h1>${site.label}</h1>
<p class="muted break"><a href="${site.url}" rel="nofollow noopener noreferrer">${site.url}</a> · tracking id <code>${site.tracking_id}</code></p>
<p><a href="/console/agent-sites/${site.id}/events">Every agent visit, newest first</a></p>
${staleDataNotice(d.freshness)}
${query.problems.length ? notice('error', html`<strong>Part of the address could not be used</strong> (a bad range shows the last 30 days): ${query.problems.join(' ')}`) : ''}
${rangePicker(view)}
${filterChips(view)}
<div class="cards-grid">
  <section class="card"><h2>Agent visits</h2><p class="big" id="total-visits">${num(stats.visits)}</p><p class="muted">${view.rangeText}, ${stats.coverage.daysCovered} ${stats.coverage.daysCovered === 1 ? 'day' : 'days'} with data</p></section>
  <section class="card"><h2>Verified</h2><p class="big">${pct(stats.verifiedShare)}</p><p class="muted">${num(stats.spoofedVisits)} spoofed</p></section>
  <section class="card"><h2>AI referrals</h2><p class="big">${num(stats.aiReferrals.visits)}</p><p class="muted">people sent by answer engines</p></section>
</div>
<section class="card" aria-labelledby="trend-title"><h2 id="trend-title">Visits over time</h2>${visitsChart(stats, d.daily, `Agent visits of ${site.label} by platform`, view)}</section>
${stats.visits ? splitTables(stats) : ''}
${agentsTable(d.agents, view)}
${pagesTable(d.pages, view)}
${referrersTable(stats, view)}
<section aria-labelledby="insights-title"><h2 id="insights-title">Insights</h2>${view.chosen || view.filtered ? html`<p class="muted">From the last 30 days of all agent traffic, whatever the range and filters.</p>` : ''}${insightList(d.insights)}</section>
<section class="card" aria-labelledby="scan-title"><h2 id="scan-title">Agent readability</h2>${citability(site, d.scan)}</section>
<section class="card" aria-labelledby="send-title"><h2 id="send-title">Send data</h2>
<p class="muted">The ingest token starts <code>${site.ingest_token_prefix}</code>…; it was shown once, when the site was registered.</p>
${snippets({ baseUrl: d.baseUrl, trackingId: site.tracking_id, now: stats.until.slice(0, 19) + 'Z' })}</section>
<section class="card" aria-labelledby="remove-title"><h2 id="remove-title">Remove the site</h2>
<form method="post" action="/console/agent-sites/${site.id}/remove" data-confirm="Remove ${site.label} and all its agent traffic? Its ingest token stops working.">${csrfField(viewer.csrf)}<button type="submit" class="danger">Remove ${site.label}</button></form>
<p class="muted">Deletes the site with all its agent traffic. This cannot be undone.</p></section>`;
  return renderPage({ title: site.label, viewer, section: 'agent-sites', assets: ['uplot'] }, body);
}
