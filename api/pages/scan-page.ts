import type { Recommendation } from '../../shared/audits/bundles.ts';
import type { Scan } from '../../shared/db/tables/scans.ts';
import { type Html, html } from '../../shared/html.ts';
import type { ModelScore } from '../../shared/scan-engine/engine.ts';
import { elapsedLabel, phaseLabel } from '../../shared/scans/phases.ts';
import type { ScanRow } from '../../shared/scans/scans.ts';
import { band, csrfField, fieldError, notice, renderPage, time, utc, type Viewer } from './layout.ts';

// The free scan: a URL box at `/`, a progress view at the scan's shareable address while the
// worker runs it, then the report (seven dimensions, the recommendation, the agent-readability view).

const DIMENSIONS_A = ['SEO', 'Speed', 'Security', 'Accessibility', 'Mobile', 'Content', 'Conversion'];

export interface HomeState {
  viewer: Viewer | null;
  csrf: string;
  url?: string;
  error?: string;
  limited?: { limit: number; resetAt: number; now: number };
}

export function renderHome(s: HomeState): string {
  const limited = s.limited
    ? notice(
        'error',
        html`<strong>You have reached the limit of ${s.limited.limit} free scans per hour from your address.</strong> You can scan again from ${utc(s.limited.resetAt * 1000)} (in about ${Math.max(1, Math.ceil((s.limited.resetAt * 1000 - s.limited.now) / 60_000))} min). ${s.viewer ? html`<a href="/console/keys">Use an API key</a> for more.` : html`With a free account you get an API key for 20 scans an hour: <a href="/signup">sign up</a>.`}`,
      )
    : '';
  const describedBy = s.error ? 'url-hint url-error' : 'url-hint';
  const body = html`<section class="hero">
  <h1>How does your website score?</h1>
  <p class="lead">A free scan across seven dimensions, with what to fix first, and how well AI agents can read your pages. No sign-up needed.</p>
  ${limited}
  <form class="scan-form" method="post" action="/scan" novalidate>
    ${csrfField(s.csrf)}
    <label for="url">Website address</label>
    <div class="row">
      <input id="url" name="url" type="text" inputmode="url" autocomplete="url" spellcheck="false" required placeholder="example.com" value="${s.url ?? ''}" aria-describedby="${describedBy}"${s.error ? html` aria-invalid="true"` : ''}>
      <button type="submit">Scan</button>
    </div>
    <p class="hint" id="url-hint">A host name or a full address. Public sites only.</p>
    ${fieldError('url', s.error)}
  </form>
</section>
<section class="features" aria-labelledby="what">
  <h2 id="what">What the scan looks at</h2>
  <ul class="chips">${DIMENSIONS_A.map((d) => html`<li>${d}</li>`)}<li>AI agent readability</li></ul>
  <p>Each dimension gets a score from 0 to 100, with the issues found and the checks passed. Scores of 90 and above are good, 50 to 89 need work, below 50 is poor.</p>
</section>`;
  return renderPage({ title: 'Free website scan', viewer: s.viewer }, body);
}

export function renderProgress(scan: ScanRow, viewer: Viewer | null): string {
  const phase = phaseLabel(scan.status, scan.phase);
  const body = html`<section class="progress" data-poll="/r/${scan.id}/state">
  <h1>Scanning <span class="break">${scan.url}</span></h1>
  <div class="spinner" aria-hidden="true"></div>
  <p role="status" aria-live="polite" class="phase"><span data-phase>${phase}…</span> <span class="muted" data-elapsed>${elapsedLabel(scan.age_ms ?? 0)}</span></p>
  <p class="muted">A ${scan.mode === 'full' ? 'full scan renders the page in a browser and runs Lighthouse; it takes up to a minute or two' : 'quick scan takes a few seconds'}. This page updates by itself. Its address is the report’s address: you can share it now.</p>
</section>`;
  return renderPage(
    {
      title: `Scanning ${scan.domain}`,
      viewer,
      head: html`<noscript><meta http-equiv="refresh" content="3"></noscript>`,
    },
    body,
  );
}

export function renderScanFailed(scan: Scan, viewer: Viewer | null): string {
  const e = scan.error ?? { code: 'scan_failed', message: 'The scan failed.' };
  const body = html`<section class="hero">
  <h1>We could not scan <span class="break">${scan.url}</span></h1>
  ${notice('error', html`${e.message} <span class="muted">(${e.code})</span>`)}
  <p><a class="button" href="/">Try another address</a></p>
</section>`;
  return renderPage({ title: `Scan failed: ${scan.domain}`, viewer }, body);
}

/**
 * A scanned URL that answered an error status: the same verdict the API gives (422
 * target_error_status), in words: no score made from a server's error page, nothing to sell.
 */
export function renderErrorVerdict(scan: Scan, httpStatus: number | null, viewer: Viewer | null): string {
  const body = html`<section class="hero">
  <h1><span class="break">${scan.url}</span> answered HTTP ${httpStatus ?? 'an error status'}</h1>
  ${notice('info', html`That is the server’s error page, not content, so it is not scored. Check the address, or scan a page that answers normally (HTTP 2xx).`)}
  <p class="muted">Scanned ${time(scan.finished_at ?? scan.created_at)} · ${scan.mode} scan</p>
  <p><a class="button" href="/">Scan another address</a></p>
</section>`;
  return renderPage({ title: `${scan.domain}: HTTP ${httpStatus ?? 'error'}`, viewer }, body);
}

function ring(score: number, label: string): Html {
  const c = 2 * Math.PI * 52;
  const filled = (c * score) / 100;
  return html`<svg class="ring ${band(score)}" viewBox="0 0 120 120" role="img" aria-label="${label} ${score} out of 100"><circle class="track" cx="60" cy="60" r="52"/><circle class="arc" cx="60" cy="60" r="52" stroke-dasharray="${filled.toFixed(1)} ${c.toFixed(1)}" transform="rotate(-90 60 60)"/><text x="60" y="72" text-anchor="middle" class="ring-text">${score}</text></svg>`;
}

// Bars are SVG with a width attribute: the CSP allows no inline style attributes.
export const bar = (score: number) =>
  html`<svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect class="bar-track" width="100" height="8" rx="4"/><rect class="bar-fill ${band(score)}" width="${Math.max(score, 2)}" height="8" rx="4"/></svg>`;

function findings(id: string, issues: string[], passes: string[]): Html {
  return html`${
    issues.length
      ? html`<h4 class="sub" id="${id}-issues">Issues (${issues.length})</h4><ul class="findings issues" aria-labelledby="${id}-issues">${issues.map((i) => html`<li>${i}</li>`)}</ul>`
      : html`<p class="muted">No issues found.</p>`
  }${
    passes.length
      ? html`<details class="passes"><summary>Passed checks (${passes.length})</summary><ul class="findings">${passes.map((p) => html`<li>${p}</li>`)}</ul></details>`
      : ''
  }`;
}

export interface ReportView {
  scan: Scan;
  a: {
    overallScore: number;
    grade: string;
    dimensions: { id: string; name: string; score: number; issues: string[]; passes: string[] }[];
    recommendation: Recommendation;
    model: { id: string; version: string };
  };
  b: ModelScore;
  shareUrl: string;
  viewer: Viewer | null;
}

const gbp = (pence: number) => `£${(pence / 100).toFixed(2).replace(/\.00$/, '')}`;

export function renderReport(r: ReportView): string {
  const { scan, a, b } = r;
  const scannedAt = scan.finished_at ?? scan.created_at;
  const summary = html`<ul class="dim-grid" aria-label="Scores by dimension">${a.dimensions.map(
    (d) =>
      html`<li><a href="#dim-${d.id}"><span class="dim-name">${d.name}</span>${bar(d.score)}<span class="score ${band(d.score)}">${d.score}</span></a></li>`,
  )}</ul>`;
  const rec = a.recommendation;
  const recommendation = html`<section class="card recommendation" aria-labelledby="rec-title">
  <h2 id="rec-title">Recommended: ${rec.name}</h2>
  <p>${rec.tagline}</p>
  <p class="price">${gbp(rec.bundlePrice)} <span class="muted">one-off, ${rec.products.length} ${rec.products.length === 1 ? 'audit' : 'audits'}</span></p>
  <p><a class="button" href="${rec.stripeLink}" rel="noopener noreferrer">Order the ${rec.name}</a></p>
</section>`;
  const dims = a.dimensions.map(
    (d) => html`<section class="card dim" id="dim-${d.id}" aria-labelledby="dim-${d.id}-h">
  <h3 id="dim-${d.id}-h">${d.name} <span class="score ${band(d.score)}">${d.score}</span></h3>
  ${findings(`dim-${d.id}`, d.issues, d.passes)}
</section>`,
  );
  const agent = html`<section class="agent" aria-labelledby="agent-title">
  <h2 id="agent-title">Agent readability</h2>
  <p class="muted">How well AI agents and answer engines can find, read and act on the page (methodology ${b.modelVersion}).</p>
  <div class="card score-head">${ring(b.overallScore, 'Agent readability')}<div><p class="big">Grade ${b.grade}</p><p class="muted">Weighted from five dimensions.</p></div></div>
  ${b.dimensions.map(
    (d) => html`<section class="card dim" id="agent-${d.id}" aria-labelledby="agent-${d.id}-h">
    <h3 id="agent-${d.id}-h">${d.name} <span class="muted weight">weight ${Math.round(d.weight * 100)}%</span> ${d.score === null ? html`<span class="score none">–</span>` : html`<span class="score ${band(d.score)}">${d.score}</span>`}</h3>
    ${findings(`agent-${d.id}`, d.issues, d.passes)}
  </section>`,
  )}
</section>`;
  const body = html`<section class="report-head">
  <div class="score-head">${ring(a.overallScore, 'Overall score')}<div>
    <h1>Report for <span class="break">${scan.domain}</span></h1>
    <p class="muted"><a class="break" href="${scan.url}" rel="nofollow noopener noreferrer">${scan.url}</a> · scanned ${time(scannedAt)} · ${scan.mode} scan · grade ${a.grade}</p>
    <p class="muted small-text">Scored with the ${a.model.id} model ${a.model.version}. <a href="/docs/guides/scoring#which-score-is-which">Why monitoring shows a different number</a></p>
  </div></div>
  <div class="share"><label for="share">Share this report</label><div class="row"><input id="share" type="text" readonly value="${r.shareUrl}"><button type="button" class="secondary" data-copy="share">Copy</button></div></div>
</section>
<section aria-labelledby="dims-title"><h2 id="dims-title">Seven dimensions</h2>${summary}</section>
${recommendation}
<section aria-labelledby="detail-title"><h2 id="detail-title">Issues and passes</h2>${dims}</section>
${agent}
<p><a class="button secondary" href="/">Scan another site</a></p>`;
  return renderPage({ title: `Report for ${scan.domain}`, viewer: r.viewer }, body);
}
