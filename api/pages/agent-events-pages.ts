import { type siteEvents, VERIFICATIONS } from '../../shared/agent-traffic/stats.ts';
import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';
import { type Html, html } from '../../shared/html.ts';
import { notice, renderPage, time, type Viewer } from './layout.ts';

// The raw event stream of one agent site (variant B): the page of GET /api/v1/sites/:id/events,
// newest first, with its filters as a GET form and its cursor as an "Older events" link, so it
// works without JavaScript. The table scrolls inside its own box on a phone.

type EventPage = Awaited<ReturnType<typeof siteEvents>>;

export const EVENT_TYPES = ['training', 'search', 'browse', 'search-engine'] as const;

const VERIFICATION_WORDS: Record<string, string> = {
  signature: 'signature',
  ip: 'IP range',
  rdns: 'reverse DNS',
  none: 'no check',
  pending: 'reverse DNS pending',
  unverified: 'unverified',
  spoofed: 'spoofed',
};

/** The filters the page was asked for: the query fields REST /events takes (empty: not set). */
export interface EventFiltersView {
  platform?: string;
  type?: string;
  verification?: string;
  path?: string;
  limit?: number;
}

/** This page's address with these filters (and a cursor): what the links and the pager carry. */
export function eventsHref(siteId: string, f: EventFiltersView, cursor?: string): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== '') q.set(k, String(v));
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return `/console/agent-sites/${siteId}/events${s ? `?${s}` : ''}`;
}

function option(value: string, label: string, current: string | undefined): Html {
  return html`<option value="${value}"${value === (current ?? '') ? html` selected` : ''}>${label}</option>`;
}

function filterForm(site: AgentSite, f: EventFiltersView): Html {
  const any = f.platform || f.type || f.verification || f.path;
  return html`<form method="get" action="/console/agent-sites/${site.id}/events" class="grid-form filters" aria-label="Filter events">
<div class="field"><label for="ev-platform">Platform</label><input id="ev-platform" name="platform" type="text" maxlength="64" value="${f.platform ?? ''}" placeholder="OpenAI, Anthropic, …"></div>
<div class="field"><label for="ev-type">Type</label><select id="ev-type" name="type">${option('', 'Any type', f.type)}${EVENT_TYPES.map((t) => option(t, t, f.type))}</select></div>
<div class="field"><label for="ev-verification">Verification</label><select id="ev-verification" name="verification">${option('', 'Any', f.verification)}${VERIFICATIONS.map((v) => option(v, VERIFICATION_WORDS[v]!, f.verification))}</select></div>
<div class="field"><label for="ev-path">Path <span class="muted">(exact)</span></label><input id="ev-path" name="path" type="text" maxlength="2048" value="${f.path ?? ''}" placeholder="/pricing"></div>
<div class="row"><button type="submit">Filter</button>${any ? html`<a class="button secondary" href="/console/agent-sites/${site.id}/events">Clear filters</a>` : ''}</div>
</form>`;
}

function eventRows(site: AgentSite, f: EventFiltersView, events: EventPage['events']): Html[] {
  return events.map(
    (e) =>
      html`<tr><td><time datetime="${e.timestamp}">${e.timestamp.slice(0, 19).replace('T', ' ')}</time></td><td><a href="${eventsHref(site.id, { ...f, platform: e.platform })}">${e.platform}</a>${e.agent ? html` <span class="muted">${e.agent}</span>` : ''}</td><td>${e.type ?? html`<span class="muted">–</span>`}</td><td><a href="${eventsHref(site.id, { ...f, verification: e.verification })}">${VERIFICATION_WORDS[e.verification] ?? e.verification}</a></td><td class="request"><code>${e.method}</code> <a href="${eventsHref(site.id, { ...f, path: e.path })}">${e.path}</a></td><td>${e.status ?? html`<span class="muted">–</span>`}</td><td>${e.ip ?? html`<span class="muted">–</span>`}</td><td>${e.source}</td><td class="ua">${e.userAgent}</td></tr>`,
  );
}

export function renderAgentEvents(
  viewer: Viewer,
  d: { site: AgentSite; filters: EventFiltersView; page: EventPage; paged: boolean },
): string {
  const { site, filters: f, page } = d;
  const rows = eventRows(site, f, page.events);
  const pager = html`<nav class="row pager" aria-label="Event pages">${d.paged ? html`<a class="button secondary" href="${eventsHref(site.id, f)}">Newest events</a>` : ''}${page.nextCursor ? html`<a class="button" href="${eventsHref(site.id, f, page.nextCursor)}" rel="next">Older events</a>` : ''}</nav>`;
  const empty = d.paged
    ? 'No older events.'
    : f.platform || f.type || f.verification || f.path
      ? 'No events match these filters.'
      : 'No agent visits recorded yet.';
  const body = html`<p class="crumbs"><a href="/console/agent-sites">Agent traffic</a> › <a href="/console/agent-sites/${site.id}">${site.label}</a> › Events</p>
<h1>Agent visits of ${site.label}</h1>
<p class="muted">Every agent visit as it was recorded, newest first: the same events as <code>GET /api/v1/sites/${site.id}/events</code>, with the same filters and cursor. Pick a platform, verification or path in the table to filter by it.</p>
${filterForm(site, f)}
${rows.length ? '' : notice('info', empty)}
${
  rows.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Agent visits, newest first"><table class="data events" id="table-events"><caption class="visually-hidden">Agent visits of ${site.label}, newest first</caption>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Platform</th><th scope="col">Type</th><th scope="col">Verification</th><th scope="col">Request</th><th scope="col">Status</th><th scope="col">Client IP</th><th scope="col">Source</th><th scope="col">User agent</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : ''
}
${pager}
<p class="muted small-text">Shown ${page.events.length} ${page.events.length === 1 ? 'event' : 'events'}${page.events[0] ? html`, from ${time(new Date(page.events[page.events.length - 1]!.timestamp))} to ${time(new Date(page.events[0].timestamp))}` : ''}.</p>`;
  return renderPage({ title: `Events of ${site.label}`, viewer, section: 'agent-sites' }, body);
}
