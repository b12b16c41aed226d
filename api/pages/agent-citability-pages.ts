import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';
import type { Scan } from '../../shared/db/tables/scans.ts';
import { type Html, html } from '../../shared/html.ts';
import { elapsedLabel, phaseLabel } from '../../shared/scans/phases.ts';
import type { ScanRow } from '../../shared/scans/scans.ts';
import type { presentSiteCitability } from '../presenters/site-citability.ts';
import { band, csrfField, notice, renderPage, scoreBadge, time, utc, type Viewer } from './layout.ts';

// A registered site's citability in the console (variant B): the latest agent-readability result
// as GET /api/v1/sites/:id/citability gives it, a form that runs POST .../citability/scan with the
// account's own hourly limit, the scan's progress (the worker's phases, as the free scan's page
// shows them) and its result.

export type SiteCitabilityView = ReturnType<typeof presentSiteCitability>;

const crumbs = (site: AgentSite, last: string) =>
  html`<p class="crumbs"><a href="/console/agent-sites">Agent traffic</a> › <a href="/console/agent-sites/${site.id}">${site.label}</a> › ${last}</p>`;

const scanPath = (site: AgentSite) => `/console/agent-sites/${site.id}/citability`;

function scanForm(site: AgentSite, viewer: Viewer, path: string | undefined): Html {
  return html`<form method="post" action="${scanPath(site)}/scan" class="grid-form" aria-label="Scan ${site.label} now">${csrfField(viewer.csrf)}
<fieldset><legend>Kind of scan</legend>
<div class="check"><input type="radio" id="mode-full" name="mode" value="full" checked><label for="mode-full">Full: renders the page in a browser and runs Lighthouse (a minute or two)</label></div>
<div class="check"><input type="radio" id="mode-quick" name="mode" value="quick"><label for="mode-quick">Quick: plain HTTP, a few seconds</label></div>
</fieldset>
<div class="field"><label for="scan-path">Page <span class="muted">(optional)</span></label><input id="scan-path" name="path" type="text" maxlength="2048" spellcheck="false" value="${path ?? ''}" placeholder="/pricing" aria-describedby="scan-path-hint"><p class="hint" id="scan-path-hint">A path on ${site.domain} to scan one page instead of the site’s address.</p></div>
<button type="submit">Scan ${site.domain} now</button></form>`;
}

function dimensionCards(r: SiteCitabilityView): Html[] {
  return r.dimensions.map(
    (d) => html`<section class="card dim" id="dim-${d.id}" aria-labelledby="dim-${d.id}-h">
<h3 id="dim-${d.id}-h">${d.name} <span class="muted weight">weight ${Math.round(d.weight * 100)}%</span> <span class="score ${band(d.score)}">${d.score}</span></h3>
${d.issues.length ? html`<h4 class="sub">Issues (${d.issues.length})</h4><ul class="findings issues">${d.issues.map((i) => html`<li>${i}</li>`)}</ul>` : html`<p class="muted">No issues found.</p>`}
${d.passes.length ? html`<details class="passes"><summary>Passed checks (${d.passes.length})</summary><ul class="findings">${d.passes.map((p) => html`<li>${p}</li>`)}</ul></details>` : ''}
</section>`,
  );
}

function resultView(r: SiteCitabilityView, own: boolean): Html {
  const signals = r.researchSignals.filter((s) => s.score !== null);
  return html`<div class="card site-head">${scoreBadge(r.overallScore, 'Agent readability')}<div><p><strong>Grade ${r.grade}</strong>, methodology ${r.methodologyVersion}</p><p class="muted small-text">Scanned ${time(new Date(r.scannedAt))} · ${r.mode} scan${own ? html` · <a href="/r/${r.scanId}">Full report</a>` : ''}</p></div></div>
${
  r.partial
    ? notice(
        'info',
        html`A partial scan: ${
          Object.entries(r.partialReasons ?? {})
            .map(([what, why]) => `${what}: ${why}`)
            .join('; ') || 'some artifacts are missing'
        }.`,
      )
    : ''
}
${signals.length ? html`<p class="muted">Research signals (not in the score): ${signals.map((s) => html`${s.id} ${s.score}`)}</p>` : ''}
${dimensionCards(r)}`;
}

export function renderSiteCitability(
  viewer: Viewer,
  d: {
    site: AgentSite;
    result: SiteCitabilityView | null;
    ownScan: boolean;
    /** Calls an hour the account's tier allows, as for one of its keys. */
    hourlyLimit: number;
    error?: Html;
    /** The page path the form was sent with, kept when it is refused. */
    path?: string;
    /** The site's scan still queued or running, if any. */
    pendingScanId?: string;
  },
): string {
  const { site } = d;
  const body = html`${crumbs(site, 'Agent readability')}
<h1>Agent readability of ${site.label}</h1>
<p class="muted break"><a href="${site.url}" rel="nofollow noopener noreferrer">${site.url}</a></p>
${d.error ?? ''}
${d.pendingScanId ? notice('info', html`A scan of ${site.domain} is under way: <a href="${scanPath(site)}/scans/${d.pendingScanId}">follow it</a>.`) : ''}
<section class="card" aria-labelledby="scan-now"><h2 id="scan-now">Scan now</h2>
<p class="muted">A fresh scan of the site’s address, as <code>POST /api/v1/sites/${site.id}/citability/scan</code> runs it. Scans from the console count against your account’s ${d.hourlyLimit} calls an hour (your tier’s limit, as an API key of it has). While a scan of this site is running, asking again follows that one.</p>
${scanForm(site, viewer, d.path)}</section>
<section aria-labelledby="latest-title"><h2 id="latest-title">Latest result</h2>
${d.result ? resultView(d.result, d.ownScan) : html`<p class="muted">Not scanned yet.</p>`}</section>`;
  return renderPage({ title: `Agent readability of ${site.label}`, viewer, section: 'agent-sites' }, body);
}

export function renderSiteScanProgress(viewer: Viewer, site: AgentSite, scan: ScanRow): string {
  const body = html`${crumbs(site, 'Scan')}
<section class="progress" data-poll="/r/${scan.id}/state">
  <h1>Scanning <span class="break">${scan.url}</span></h1>
  <div class="spinner" aria-hidden="true"></div>
  <p role="status" aria-live="polite" class="phase"><span data-phase>${phaseLabel(scan.status, scan.phase)}…</span> <span class="muted" data-elapsed>${elapsedLabel(scan.age_ms ?? 0)}</span></p>
  <p class="muted">A ${scan.mode === 'full' ? 'full scan renders the page in a browser and runs Lighthouse; it takes up to a minute or two' : 'quick scan takes a few seconds'}. This page updates by itself, and shows the result when the scan is done.</p>
</section>`;
  return renderPage(
    {
      title: `Scanning ${site.label}`,
      viewer,
      section: 'agent-sites',
      head: html`<noscript><meta http-equiv="refresh" content="3"></noscript>`,
    },
    body,
  );
}

export function renderSiteScanResult(viewer: Viewer, site: AgentSite, r: SiteCitabilityView): string {
  const body = html`${crumbs(site, 'Scan')}
<h1>Agent readability of ${site.label}</h1>
<p class="muted break"><a href="${r.url}" rel="nofollow noopener noreferrer">${r.url}</a></p>
${notice('ok', html`Scan done: ${r.overallScore} out of 100, grade ${r.grade}.`)}
${resultView(r, true)}
<p><a class="button secondary" href="${scanPath(site)}">Back to the site’s agent readability</a></p>`;
  return renderPage({ title: `Scan of ${site.label}`, viewer, section: 'agent-sites' }, body);
}

/** A scan that ended without a score: it failed, or the address answered an error status. */
export function renderSiteScanEnded(viewer: Viewer, site: AgentSite, scan: Scan, why: string): string {
  const body = html`${crumbs(site, 'Scan')}
<h1>We could not score <span class="break">${scan.url}</span></h1>
${notice('error', why)}
<p><a class="button secondary" href="${scanPath(site)}">Back to the site’s agent readability</a></p>`;
  return renderPage({ title: `Scan of ${site.label}`, viewer, section: 'agent-sites' }, body);
}

/** The notice shown when the account's hourly calls are spent (the page answers 429). */
export function limitNotice(limit: number, resetAt: number, now: number): Html {
  const minutes = Math.max(1, Math.ceil((resetAt * 1000 - now) / 60_000));
  return notice(
    'error',
    html`<strong>Your account has used its ${limit} calls this hour.</strong> You can scan again from ${utc(resetAt * 1000)} (in about ${minutes} min). Each API key of the account has an hourly allowance of its own.`,
  );
}
