import { type Html, html, raw } from '../../shared/html.ts';
import { gradeFor } from '../../shared/scan-engine/model.ts';
import { monitoringModel } from '../../shared/scan-engine/models/monitoring.ts';
import type { StatusPageView } from '../presenters/monitoring.ts';

// The public status page: one self-contained document (inline CSS and SVG, no scripts, no
// external assets), so it renders the same behind any proxy and under a strict CSP.

type SiteView = StatusPageView['sites'][number];
type AlertView = StatusPageView['alerts'][number];

export const STATUS_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const DIMENSION_NAMES: [keyof NonNullable<SiteView['dimensionScores']>, string][] = [
  ['seo', 'SEO'],
  ['speed', 'Speed'],
  ['copy', 'Copy'],
  ['social', 'Social'],
  ['local', 'Local'],
  ['ai', 'AI visibility'],
];

const ALERT_LABELS: Record<AlertView['alert_type'], string> = {
  score_drop: 'Score drop',
  dimension_drop: 'Dimension drop',
  site_down: 'Site down',
  recovered: 'Recovered',
};

// Lighthouse's bands: 90-100 good, 50-89 needs improvement, 0-49 poor.
// One scale for the whole page: the colour of a score, its grade and the legend all come from the
// monitoring model's grade bands (A/B good, C/D fair, F poor), so 52 is never "Grade F" in a
// "needs work" colour.
const BAND_OF_GRADE: Record<string, 'good' | 'fair' | 'poor'> = {
  A: 'good',
  B: 'good',
  C: 'fair',
  D: 'fair',
  F: 'poor',
};
export const band = (score: number) => BAND_OF_GRADE[gradeFor(monitoringModel, score)] ?? 'poor';

/** "A 90 and above, B 80-89, …, F below 60": the legend, from the same bands. */
export function gradeLegend(): string {
  const g = monitoringModel.grades;
  return g
    .map((b, i) =>
      i === 0
        ? `${b.grade} ${b.min} and above`
        : b.min === 0
          ? `${b.grade} below ${g[i - 1]!.min}`
          : `${b.grade} ${b.min}-${g[i - 1]!.min - 1}`,
    )
    .join(', ');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
function utc(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}
const shortDate = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
};
function relative(ms: number, now: number): string {
  const s = Math.round((now - ms) / 1000);
  const future = s < 0;
  const a = Math.abs(s);
  const text =
    a < 60
      ? 'less than a minute'
      : a < 3600
        ? `${Math.round(a / 60)} min`
        : a < 86_400
          ? `${Math.round(a / 3600)} h`
          : `${Math.round(a / 86_400)} d`;
  return future ? `in ${text}` : `${text} ago`;
}
const time = (ms: number, now: number) =>
  html`<time datetime="${new Date(ms).toISOString()}" title="${utc(ms)}">${relative(ms, now)}</time>`;

/** The overall score as a ring gauge. */
function ring(site: SiteView): Html {
  if (site.overallScore === null || site.status !== 'up') {
    const text = site.status === 'down' ? 'down' : '–';
    return html`<svg class="ring ${site.status}" viewBox="0 0 120 120" role="img" aria-label="${site.status === 'down' ? 'Site down' : 'Not scanned yet'}"><circle class="track" cx="60" cy="60" r="52"/><text x="60" y="68" text-anchor="middle" class="ring-text small">${text}</text></svg>`;
  }
  const c = 2 * Math.PI * 52;
  const filled = (c * site.overallScore) / 100;
  return html`<svg class="ring ${band(site.overallScore)}" viewBox="0 0 120 120" role="img" aria-label="Overall score ${site.overallScore} out of 100"><circle class="track" cx="60" cy="60" r="52"/><circle class="arc" cx="60" cy="60" r="52" stroke-dasharray="${filled.toFixed(1)} ${c.toFixed(1)}" transform="rotate(-90 60 60)"/><text x="60" y="70" text-anchor="middle" class="ring-text">${site.overallScore}</text></svg>`;
}

function dimensionBars(site: SiteView): Html {
  const scores = site.dimensionScores;
  if (!scores || site.status !== 'up') return html``;
  const rows = DIMENSION_NAMES.filter(([id]) => scores[id] !== undefined).map(([id, name]) => {
    const v = scores[id] as number;
    return html`<li><span class="dim-name">${name}</span><svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect class="bar-track" width="100" height="8" rx="4"/><rect class="bar-fill ${band(v)}" width="${Math.max(v, 2)}" height="8" rx="4"/></svg><span class="dim-score ${band(v)}">${v}</span></li>`;
  });
  return html`<ul class="dims" aria-label="Scores by dimension">${rows}</ul>`;
}

/** Overall score over the last scans: area and line, a dot per scan, down scans in red. */
function historyChart(site: SiteView): Html {
  const points = site.history;
  if (points.length === 0)
    return html`<p class="muted chart-empty">The history chart appears after the first scan.</p>`;
  const W = 640;
  const H = 180;
  const left = 34;
  const right = 12;
  const top = 12;
  const bottom = 26;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const x = (i: number) => left + (points.length === 1 ? plotW / 2 : (plotW * i) / (points.length - 1));
  const y = (v: number) => top + plotH - (plotH * v) / 100;
  const coords = points.map((p, i) => [x(i), y(p.overallScore)] as const);
  const line = coords
    .map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${px.toFixed(1)},${py.toFixed(1)}`)
    .join(' ');
  const area = `${line} L${coords.at(-1)![0].toFixed(1)},${y(0)} L${coords[0]![0].toFixed(1)},${y(0)} Z`;
  const grid = [0, 50, 100].map(
    (v) =>
      html`<line class="grid" x1="${left}" x2="${W - right}" y1="${y(v)}" y2="${y(v)}"/><text class="axis" x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`,
  );
  const dots = points.map((p, i) => {
    const [px, py] = coords[i]!;
    const label = `${utc(p.scannedAt)}: ${p.status === 'down' ? 'site down' : `score ${p.overallScore}`}`;
    return html`<circle class="dot ${p.status === 'down' ? 'down' : band(p.overallScore)}" cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="4"><title>${label}</title></circle>`;
  });
  const first = points[0]!;
  const last = points.at(-1)!;
  const summary = points.map((p) => (p.status === 'down' ? 'down' : String(p.overallScore))).join(', ');
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Overall score over the last ${points.length} scans: ${summary}"><title>Overall score, last ${points.length} scans</title>${grid}<path class="area" d="${area}"/><path class="line" d="${line}"/>${dots}<text class="axis" x="${left}" y="${H - 6}">${shortDate(first.scannedAt)}</text><text class="axis" x="${W - right}" y="${H - 6}" text-anchor="end">${shortDate(last.scannedAt)}</text></svg>`;
}

function siteCard(site: SiteView, now: number): Html {
  const pill =
    site.status === 'up'
      ? html`<span class="pill up">Up</span>`
      : site.status === 'down'
        ? html`<span class="pill down">Down</span>`
        : html`<span class="pill pending">First scan pending</span>`;
  const grade = site.grade ? html`<span class="grade">Grade ${site.grade}</span>` : '';
  return html`<article class="card">
  <header class="card-head">
    ${ring(site)}
    <div class="card-title">
      <h2>${site.label} ${pill}</h2>
      <a class="url" href="${site.url}" rel="nofollow noopener noreferrer">${site.url}</a>
      <p class="meta">${grade}${
        site.lastScannedAt !== null ? html`<span>Last scanned ${time(site.lastScannedAt, now)}</span>` : ''
      }<span>Next scan ${site.nextScanDueAt <= now ? 'due now' : time(site.nextScanDueAt, now)}</span></p>
    </div>
  </header>
  ${dimensionBars(site)}
  <section class="history"><h3>Overall score history</h3>${historyChart(site)}</section>
</article>`;
}

function alertList(alerts: AlertView[], now: number): Html {
  if (alerts.length === 0) return html`<p class="muted">No alerts so far.</p>`;
  const items = alerts.map(
    (a) =>
      html`<li class="alert"><span class="badge ${a.alert_type}">${ALERT_LABELS[a.alert_type]}</span><span class="alert-msg">${a.message}</span>${time(Date.parse(a.scanned_at), now)}</li>`,
  );
  return html`<ul class="alerts">${items}</ul>`;
}

const STYLE = raw(`
:root{--bg:#f6f7f9;--card:#fff;--text:#1b1f24;--muted:#5f6b7a;--line:#e3e7ec;--good:#0c8a4d;--fair:#c76b00;--poor:#d1342f;--accent:#2f6fde;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--card:#171b21;--text:#e8ecf1;--muted:#97a3b3;--line:#2a313a;--good:#2fbf71;--fair:#f0a030;--poor:#ff6b63;--accent:#6ea2ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Ubuntu,sans-serif}
main{max-width:960px;margin:0 auto;padding:32px 20px 48px}
.page-head h1{margin:0;font-size:28px;letter-spacing:-.01em}
.page-head p{margin:4px 0 0;color:var(--muted)}
.overall-status{display:inline-flex;align-items:center;gap:8px;margin-top:14px;padding:8px 14px;border-radius:999px;background:var(--card);border:1px solid var(--line);font-weight:600}
.overall-status::before{content:"";width:10px;height:10px;border-radius:50%;background:var(--good)}
.overall-status.some-down::before{background:var(--poor)}
.cards{display:grid;gap:20px;margin-top:24px}
.card{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:20px 22px;box-shadow:0 1px 2px rgba(0,0,0,.04)}
.card-head{display:flex;gap:18px;align-items:center}
.card-title{min-width:0}
.card-title h2{margin:0;font-size:20px;display:flex;flex-wrap:wrap;align-items:center;gap:10px}
.url{color:var(--accent);text-decoration:none;word-break:break-all}
.url:hover{text-decoration:underline}
.meta{margin:6px 0 0;color:var(--muted);font-size:13px;display:flex;flex-wrap:wrap;gap:4px 16px}
.grade{font-weight:600;color:var(--text)}
.ring{width:96px;height:96px;flex:none}
.ring .track{fill:none;stroke:var(--line);stroke-width:10}
.ring .arc{fill:none;stroke-width:10;stroke-linecap:round}
.ring.good .arc{stroke:var(--good)}.ring.good .ring-text{fill:var(--good)}
.ring.fair .arc{stroke:var(--fair)}.ring.fair .ring-text{fill:var(--fair)}
.ring.poor .arc{stroke:var(--poor)}.ring.poor .ring-text{fill:var(--poor)}
.ring-text{font-size:34px;font-weight:700;fill:var(--text)}
.ring-text.small{font-size:22px;fill:var(--muted)}
.ring.down .ring-text{fill:var(--poor)}
.pill{font-size:12px;font-weight:600;padding:2px 10px;border-radius:999px;letter-spacing:.02em}
.pill.up{background:color-mix(in srgb,var(--good) 15%,transparent);color:var(--good)}
.pill.down{background:color-mix(in srgb,var(--poor) 15%,transparent);color:var(--poor)}
.pill.pending{background:color-mix(in srgb,var(--muted) 15%,transparent);color:var(--muted)}
.dims{list-style:none;margin:18px 0 0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:8px 28px}
.dims li{display:grid;grid-template-columns:110px 1fr 34px;align-items:center;gap:10px;font-size:14px}
.dim-name{color:var(--muted)}
.dim-score{font-weight:700;text-align:right;font-variant-numeric:tabular-nums}
.bar{width:100%;height:8px}
.bar-track{fill:var(--line)}
.bar-fill.good,.dot.good{fill:var(--good)}
.bar-fill.fair,.dot.fair{fill:var(--fair)}
.bar-fill.poor,.dot.poor,.dot.down{fill:var(--poor)}
.dim-score.good{color:var(--good)}.dim-score.fair{color:var(--fair)}.dim-score.poor{color:var(--poor)}
.history h3,.alerts-section h2{font-size:13px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:20px 0 6px}
.chart{width:100%;height:auto;display:block}
.chart .grid{stroke:var(--line);stroke-width:1}
.chart .axis{fill:var(--muted);font-size:11px}
.chart .line{fill:none;stroke:var(--accent);stroke-width:2.5;stroke-linejoin:round;stroke-linecap:round}
.chart .area{fill:var(--accent);opacity:.12}
.chart .dot{stroke:var(--card);stroke-width:2}
.muted{color:var(--muted)}
.alerts-section{margin-top:32px}
.alerts{list-style:none;margin:0;padding:0;background:var(--card);border:1px solid var(--line);border-radius:14px}
.alert{display:grid;grid-template-columns:auto 1fr auto;gap:12px;align-items:baseline;padding:12px 16px;border-top:1px solid var(--line);font-size:14px}
.alert:first-child{border-top:0}
.alert time{color:var(--muted);font-size:12px;white-space:nowrap}
.badge{font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;padding:2px 8px;border-radius:6px;white-space:nowrap}
.badge.score_drop,.badge.dimension_drop{background:color-mix(in srgb,var(--fair) 16%,transparent);color:var(--fair)}
.badge.site_down{background:color-mix(in srgb,var(--poor) 16%,transparent);color:var(--poor)}
.badge.recovered{background:color-mix(in srgb,var(--good) 16%,transparent);color:var(--good)}
footer{margin-top:36px;color:var(--muted);font-size:12px;text-align:center}
@media (max-width:560px){.card-head{align-items:flex-start}.ring{width:72px;height:72px}.alert{grid-template-columns:1fr}}
`);

function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`.value;
}

export function renderStatusPage(view: StatusPageView): string {
  const now = view.generatedAt;
  const down = view.sites.filter((s) => s.status === 'down').length;
  const summary =
    view.sites.length === 0
      ? 'No sites are monitored yet'
      : down > 0
        ? `${down} of ${view.sites.length} ${view.sites.length === 1 ? 'site is' : 'sites are'} down`
        : view.sites.length === 1
          ? 'The site is up'
          : `All ${view.sites.length} sites are up`;
  const cadence = view.scanFrequency === 'daily' ? 'Scanned daily' : 'Scanned weekly';
  const body = html`<header class="page-head">
  <h1>Site status</h1>
  <p>${cadence} for SEO, speed, copy, social, local and AI visibility · updated ${utc(now)}</p>
  <div class="overall-status${down > 0 ? ' some-down' : ''}">${summary}</div>
</header>
<div class="cards">${view.sites.map((s) => siteCard(s, now))}</div>
<section class="alerts-section"><h2>Recent alerts</h2>${alertList(view.alerts, now)}</section>
<footer>Scores run from 0 to 100. Grades: ${gradeLegend()}. Green is A or B, amber C or D, red F.</footer>`;
  return page('Site status', body);
}

export function renderNotFoundPage(): string {
  return page(
    'Status page not found',
    html`<header class="page-head"><h1>Status page not found</h1><p>There is no status page at this address. Check the link you were given; status links are long and easy to cut short.</p></header>`,
  );
}
