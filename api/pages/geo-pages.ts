import type { GeoPrompt } from '../../shared/db/tables/geo.ts';
import type { MonitoredSite } from '../../shared/db/tables/monitored-sites.ts';
import { type Html, html } from '../../shared/html.ts';
import { csrfField, notice, renderPage, time, type Viewer } from './layout.ts';

// GEO for one monitored site in the console: the latest GEO check (six signals), citability, the
// latest visibility and share-of-voice runs with their intervals, the account's canonical prompts,
// and the recent history. Served by api/pages/routes/geo.ts.

interface Signal {
  id: string;
  name: string;
  status: 'pass' | 'warn' | 'fail';
  score: number;
  maxScore: number;
  detail: string;
  fix?: string;
}
interface Interval {
  low: number;
  high: number;
}
export interface GeoPageView {
  site: MonitoredSite;
  latest: {
    check: {
      overallScore: number;
      maxScore: number;
      grade: string;
      signals: Signal[];
      checkedAt: string;
    } | null;
    citability: { overall: number; grade: string; checkedAt: string } | null;
    visibility: {
      runId: string;
      finishedAt: string | null;
      citedCount: number;
      totalPrompts: number;
      citationRate: number;
      interval: Interval;
    } | null;
    shareOfVoice: {
      runId: string;
      finishedAt: string | null;
      ownCitationRate: number;
      yourRank: number;
      gapToLeader: number;
    } | null;
  };
  /** Runs started but not finished, by kind: the page refreshes itself while one is pending. */
  pending: { visibility: boolean; sov: boolean; checkScanId?: string };
  prompts: { list: GeoPrompt[]; quota: number };
  history: { type: 'check' | 'run'; at: string; summary: string }[];
  /** Why runs cannot start on this server (no answer engine configured), if so. */
  enginesMissing?: string;
  notice?: { kind: 'ok' | 'error' | 'info'; text: string };
  promptForm?: { prompt?: string; label?: string; error?: string };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

function checkCard(v: GeoPageView, viewer: Viewer): Html {
  const c = v.latest.check;
  const run = html`<form method="post" action="/console/sites/${v.site.id}/geo/check" class="inline">${csrfField(viewer.csrf)}<button type="submit">${c ? 'Check again' : 'Run a GEO check'}</button></form>`;
  if (v.pending.checkScanId)
    return html`<section class="card"><h2>GEO check</h2><p role="status">Checking the site… this page refreshes by itself.</p></section>`;
  if (!c)
    return html`<section class="card"><h2>GEO check</h2><p class="muted">No GEO check yet: it scans the site and scores six signals that decide whether answer engines can find and cite it.</p>${run}</section>`;
  return html`<section class="card"><h2>GEO check <span class="score">${c.overallScore}/${c.maxScore}</span> <span class="muted">grade ${c.grade}</span></h2>
<p class="muted small-text">Checked ${time(new Date(c.checkedAt))}${v.latest.citability ? html` · citability ${v.latest.citability.overall}/100 (${v.latest.citability.grade})` : ''}</p>
<ul class="findings">${c.signals.map((s) => html`<li><strong>${s.name}</strong> ${s.score}/${s.maxScore} <span class="pill ${s.status}">${s.status}</span><br><span class="muted">${s.detail}</span>${s.fix ? html`<br>Fix: ${s.fix}` : ''}</li>`)}</ul>
${run}</section>`;
}

function runsCard(v: GeoPageView, viewer: Viewer): Html {
  const vis = v.latest.visibility;
  const sov = v.latest.shareOfVoice;
  const start = (kind: 'visibility' | 'sov', label: string) =>
    v.pending[kind]
      ? html`<p role="status">${label}: running… this page refreshes by itself.</p>`
      : html`<form method="post" action="/console/sites/${v.site.id}/geo/${kind}" class="inline">${csrfField(viewer.csrf)}<button type="submit" class="secondary"${v.enginesMissing ? html` disabled` : ''}>${label}</button></form>`;
  return html`<section class="card"><h2>Visibility in answer engines</h2>
${v.enginesMissing ? notice('info', v.enginesMissing) : ''}
${
  vis
    ? html`<p>Cited in <strong>${vis.citedCount}</strong> of ${vis.totalPrompts} prompts · citation rate <strong>${pct(vis.citationRate)}</strong> <span class="muted">(95% interval ${pct(vis.interval.low)}–${pct(vis.interval.high)})</span></p><p class="muted small-text">Finished ${vis.finishedAt ? time(new Date(vis.finishedAt)) : 'not yet'}</p>`
    : html`<p class="muted">No visibility run yet: it asks answer engines your canonical prompts and counts the answers that cite your site.</p>`
}
${
  sov
    ? html`<p>Share of voice: rank <strong>${sov.yourRank}</strong> among your site and competitors · your citation rate ${pct(sov.ownCitationRate)} · gap to the leader ${pct(sov.gapToLeader)}</p>`
    : v.site.site_type === 'own'
      ? html`<p class="muted">No share-of-voice run yet: the same prompts, judged for your site and every competitor.</p>`
      : ''
}
<div class="actions">${start('visibility', 'Run a visibility test')}${v.site.site_type === 'own' ? start('sov', 'Run share of voice') : ''}</div>
</section>`;
}

function promptsCard(v: GeoPageView, viewer: Viewer): Html {
  const f = v.promptForm ?? {};
  const full = v.prompts.list.length >= v.prompts.quota;
  return html`<section class="card" aria-labelledby="prompts-title"><h2 id="prompts-title">Prompts <span class="muted">${v.prompts.list.length} of ${v.prompts.quota}</span></h2>
<p class="muted small-text">The questions every run asks, for all your sites.</p>
${
  v.prompts.list.length
    ? html`<ul class="findings">${v.prompts.list.map((p) => html`<li><strong>${p.label}</strong>: ${p.prompt} <form method="post" action="/console/sites/${v.site.id}/geo/prompts/${p.id}/remove" class="inline">${csrfField(viewer.csrf)}<button type="submit" class="danger small" aria-label="Remove prompt ${p.label}">Remove</button></form></li>`)}</ul>`
    : html`<p class="muted">No prompts yet: add the questions your customers ask.</p>`
}
${f.error ? notice('error', f.error) : ''}
${
  full
    ? html`<p class="muted">All ${v.prompts.quota} prompts of your plan are in use: remove one to add another.</p>`
    : html`<form method="post" action="/console/sites/${v.site.id}/geo/prompts" class="grid-form">${csrfField(viewer.csrf)}
<div class="field"><label for="prompt-label">Label</label><input id="prompt-label" name="label" type="text" maxlength="200" required value="${f.label ?? ''}"></div>
<div class="field"><label for="prompt-text">Question</label><input id="prompt-text" name="prompt" type="text" maxlength="1000" required value="${f.prompt ?? ''}"></div>
<button type="submit">Add prompt</button></form>`
}
</section>`;
}

export function renderGeo(viewer: Viewer, v: GeoPageView): string {
  const refresh = v.pending.visibility || v.pending.sov || v.pending.checkScanId;
  const body = html`<p class="crumbs"><a href="/console/sites">Monitoring</a> › <a href="/console/sites/${v.site.id}">${v.site.label}</a> › GEO</p>
<h1>GEO: ${v.site.label}</h1>
${v.notice ? notice(v.notice.kind, v.notice.text) : ''}
${checkCard(v, viewer)}
${runsCard(v, viewer)}
${promptsCard(v, viewer)}
<section class="card"><h2>History</h2>${
    v.history.length
      ? html`<ul class="findings">${v.history.map((h) => html`<li>${time(new Date(h.at))}: ${h.summary}</li>`)}</ul>`
      : html`<p class="muted">Nothing yet.</p>`
  }</section>`;
  return renderPage(
    {
      title: `GEO: ${v.site.label}`,
      viewer,
      section: 'sites',
      head: refresh ? html`<meta http-equiv="refresh" content="5">` : undefined,
    },
    body,
  );
}
