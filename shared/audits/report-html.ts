import { type Html, html, raw } from '../html.ts';
import { type AuditFinding, type AuditReport, SEVERITIES, type Severity } from './report.ts';

// The report as one self-contained HTML page: inline CSS, no scripts, no external requests, so
// it renders the same offline, in a mail client's preview and on paper. Everything from the
// crawled site is escaped; links to it never send a Referer (the report URL holds its token).

const MAX_URLS_SHOWN = 25;
const LABEL: Record<Severity, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low' };

const link = (url: string): Html | string =>
  /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="noreferrer noopener nofollow">${url}</a>` : url;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export function renderReportHtml(r: AuditReport, opts: { jsonHref?: string } = {}): string {
  return reportPage(r, opts).value;
}

function reportPage(r: AuditReport, opts: { jsonHref?: string }): Html {
  const host = new URL(r.site).host;
  const total = SEVERITIES.reduce((n, s) => n + r.counts[s], 0);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${r.product.name}: ${host}</title>
<style>${raw(CSS)}</style>
</head>
<body>
<header class="cover">
  <p class="eyebrow">${r.product.name}</p>
  <h1>${host}</h1>
  <p class="meta">Target ${link(r.target_url)} · generated ${when(r.generated_at)} · order <code>${r.order_id}</code></p>
  <div class="scorecard">
    <div class="score grade-${(r.grade ?? 'none').toLowerCase()}" aria-label="Score ${r.score ?? 'not available'} out of 100">
      <span class="num">${r.score ?? '–'}</span><span class="of">/100</span>
      <span class="grade">${r.grade ? `Grade ${r.grade}` : 'Not scored'}</span>
    </div>
    <p class="summary">${r.summary}</p>
  </div>
  <ul class="counts" aria-label="Findings by severity">
    ${SEVERITIES.map((s) => html`<li class="sev-${s}"><a href="#${s}"><strong>${r.counts[s]}</strong> ${LABEL[s].toLowerCase()}</a></li>`)}
  </ul>
</header>
<main>
  <h2 class="section-title">Findings <span class="muted">(${plural(total, 'finding')} in ${r.dimension.name})</span></h2>
  ${total === 0 ? html`<p class="empty">No ${r.dimension.name.toLowerCase()} issues were found on the pages audited.</p>` : ''}
  ${SEVERITIES.filter((s) => r.findings[s].length > 0).map(
    (s) => html`<section class="severity" id="${s}" aria-labelledby="h-${s}">
    <h2 id="h-${s}"><span class="badge sev-${s}">${LABEL[s]}</span> ${plural(r.findings[s].length, 'finding')}</h2>
    ${r.findings[s].map(findingHtml)}
  </section>`,
  )}
  <section id="passes" aria-labelledby="h-passes">
    <h2 id="h-passes">Passed checks <span class="muted">(${r.passes.length})</span></h2>
    ${
      r.passes.length
        ? html`<ul class="passes">${r.passes.map((p) => html`<li>${p.title} <span class="muted">(${plural(p.pages, 'page')})</span></li>`)}</ul>`
        : html`<p class="empty">None.</p>`
    }
    ${
      r.not_assessed.length
        ? html`<h3>Not assessed</h3><ul class="passes">${r.not_assessed.map((n) => html`<li>${n.title}: <span class="muted">${n.reason}</span></li>`)}</ul>`
        : ''
    }
  </section>
  <section id="pages" aria-labelledby="h-pages">
    <h2 id="h-pages">Pages audited <span class="muted">(${r.pages.length})</span></h2>
    <table>
      <thead><tr><th scope="col">URL</th><th scope="col">HTTP</th><th scope="col">Score</th><th scope="col">Mode</th></tr></thead>
      <tbody>
      ${r.pages.map((p) => html`<tr><td class="url">${link(p.url)}</td><td>${p.status}</td><td>${p.score ?? '–'}</td><td>${p.mode === 'full' ? 'browser + Lighthouse' : 'HTTP'}</td></tr>`)}
      </tbody>
    </table>
  </section>
  <section id="method" aria-labelledby="h-method">
    <h2 id="h-method">How this report was made</h2>
    <ul>
      <li>Crawled ${link(r.site + '/')} from the target, following same-origin links and the sitemap${r.crawl.sitemap_found ? '' : ' (none found)'}, up to ${plural(r.crawl.max_pages, 'page')}, in ${(r.crawl.duration_ms / 1000).toFixed(1)} s.</li>
      <li>robots.txt (${link(r.crawl.robots_txt)}, HTTP ${r.crawl.robots_status ?? 'none'}) was honoured for SightlineBot${r.crawl.crawl_delay_seconds ? `, with a crawl delay of ${r.crawl.crawl_delay_seconds} s` : ''}${r.crawl.skipped.disallowed_by_robots.length ? `; ${plural(r.crawl.skipped.disallowed_by_robots.length, 'URL')} it disallows ${r.crawl.skipped.disallowed_by_robots.length === 1 ? 'was' : 'were'} not fetched` : ''}.</li>
      <li>${plural(r.crawl.full_mode_pages, 'key page')} rendered in a browser with Lighthouse; the others were checked over plain HTTP.</li>
      ${skippedHtml(r)}
      <li>Severity: ${r.severity_rule}</li>
      <li>Scores: each page scored with the ${r.dimension.name} checks of the ${r.model.id} model ${r.model.version}; the report's score is their mean; the grade is the lower of the mean's grade and one band above that of the worst quarter of pages${r.worst_pages_score != null ? ` (here ${r.worst_pages_score})` : ''}.</li>
    </ul>
  </section>
</main>
<footer>
  <p>${r.product.name} · ${r.site} · ${when(r.generated_at)}${opts.jsonHref ? html` · <a href="${opts.jsonHref}">this report as JSON</a>` : ''}</p>
</footer>
</body>
</html>
`;
}

function findingHtml(f: AuditFinding): Html {
  const shown = f.affected.slice(0, MAX_URLS_SHOWN);
  const more = f.affected.length - shown.length;
  return html`<article class="finding sev-${f.severity}" id="f-${f.check_id}">
      <h3><span class="badge sev-${f.severity}">${LABEL[f.severity]}</span> ${f.title}</h3>
      <p class="impact">${f.scope === 'site' ? 'Site-wide' : plural(f.affected_count, 'page') + ' affected'} · costs up to ${f.points_lost} points on a page · check <code>${f.check_id}</code></p>
      <dl>
        ${f.why_it_matters ? html`<dt>Why it matters</dt><dd>${f.why_it_matters}</dd>` : ''}
        <dt>How to fix</dt><dd>${f.how_to_fix}</dd>
      </dl>
      <h4>Affected URLs</h4>
      <ul class="urls">
        ${shown.map((a) => html`<li>${link(a.url)}<span class="msg">${a.message}</span></li>`)}
        ${more > 0 ? html`<li class="more">and ${plural(more, 'more URL')} (listed in the JSON report)</li>` : ''}
      </ul>
    </article>`;
}

function skippedHtml(r: AuditReport): Html | string {
  const s = r.crawl.skipped;
  const parts = [
    s.not_html.length ? plural(s.not_html.length, 'non-HTML URL') : '',
    s.errors.length ? plural(s.errors.length, 'URL') + ' that could not be fetched' : '',
    s.off_site ? plural(s.off_site, 'redirect') + ' to another site' : '',
    s.not_visited ? plural(s.not_visited, 'URL') + ' beyond the page or time bound' : '',
  ].filter(Boolean);
  return parts.length ? html`<li>Not audited: ${parts.join(', ')}.</li>` : '';
}

const CSS = `
:root { --ink: #1f2933; --muted: #52606d; --line: #d9e2ec; --bg: #f5f7fa; --accent: #1d4ed8;
  --critical: #9b1c1c; --critical-bg: #fde8e8; --high: #9a3412; --high-bg: #ffedd5;
  --medium: #854d0e; --medium-bg: #fef3c7; --low: #1e40af; --low-bg: #dbeafe; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #eef2f7; padding: 0 0.25em; border-radius: 3px; }
.cover, main, footer { max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
.cover { background: #fff; border-bottom: 1px solid var(--line); max-width: none; }
.cover > * { max-width: 57rem; margin-left: auto; margin-right: auto; }
.eyebrow { text-transform: uppercase; letter-spacing: 0.08em; font-size: 0.8rem; color: var(--muted); margin: 0 auto; }
h1 { font-size: 2rem; margin: 0.2rem auto 0.4rem; overflow-wrap: anywhere; }
.meta { color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
.scorecard { display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; margin-top: 1rem; }
.score { min-width: 9rem; padding: 0.8rem 1rem; border-radius: 10px; background: var(--bg); border: 2px solid var(--line); text-align: center; }
.score .num { font-size: 2.6rem; font-weight: 700; }
.score .of { color: var(--muted); }
.score .grade { display: block; font-weight: 600; }
.grade-a { border-color: #15803d; } .grade-b { border-color: #4d7c0f; } .grade-c { border-color: #a16207; }
.grade-d { border-color: #c2410c; } .grade-f { border-color: #b91c1c; }
.summary { flex: 1 1 20rem; margin: 0; font-size: 1.05rem; }
.counts { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 1rem; }
.counts li { border-radius: 999px; padding: 0.2rem 0.8rem; }
.counts a { color: inherit; text-decoration: none; }
.sev-critical { background: var(--critical-bg); color: var(--critical); }
.sev-high { background: var(--high-bg); color: var(--high); }
.sev-medium { background: var(--medium-bg); color: var(--medium); }
.sev-low { background: var(--low-bg); color: var(--low); }
.section-title { margin-top: 0.5rem; }
.muted { color: var(--muted); font-weight: normal; }
.badge { display: inline-block; font-size: 0.75rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.05em; padding: 0.1rem 0.5rem; border-radius: 4px; vertical-align: middle; }
section { margin: 2rem 0; }
.finding { background: #fff; color: var(--ink); border: 1px solid var(--line); border-left: 6px solid; border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0; }
.finding.sev-critical { border-left-color: var(--critical); } .finding.sev-high { border-left-color: var(--high); }
.finding.sev-medium { border-left-color: #b45309; } .finding.sev-low { border-left-color: var(--low); }
.finding h3 { margin: 0 0 0.3rem; font-size: 1.15rem; }
.finding h4 { margin: 0.8rem 0 0.3rem; font-size: 0.95rem; }
.impact { color: var(--muted); font-size: 0.9rem; margin: 0 0 0.6rem; }
dl { margin: 0; } dt { font-weight: 600; margin-top: 0.4rem; } dd { margin: 0 0 0 0; }
.urls { margin: 0; padding-left: 1.2rem; }
.urls li { margin: 0.25rem 0; overflow-wrap: anywhere; }
.urls .msg { display: block; color: var(--muted); font-size: 0.9rem; }
.passes { columns: 2 18rem; padding-left: 1.2rem; }
table { width: 100%; border-collapse: collapse; background: #fff; font-size: 0.92rem; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.url { overflow-wrap: anywhere; }
.empty { color: var(--muted); }
footer { color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); }
@media (max-width: 40rem) { .cover, main, footer { padding: 1rem; } h1 { font-size: 1.5rem; } .passes { columns: 1; } }
@media print {
  @page { margin: 14mm 12mm; }
  body { background: #fff; font-size: 10.5pt; }
  .cover { border: 0; padding: 0 0 0.5rem; }
  main, footer { max-width: none; padding: 0; }
  .finding, .score, .counts li, .badge { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .finding { break-inside: avoid; page-break-inside: avoid; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
`;
