import type { MonitoredSite } from '../../shared/db/tables/monitored-sites.ts';
import { type Html, html } from '../../shared/html.ts';
import { csrfField, fieldError, notice, type Viewer } from './layout.ts';

// The "Manage" card of a monitored site's console page: what a key can do to the site over REST
// (PATCH, POST …/scan, DELETE), as forms. Handled by api/pages/routes/monitored-site.ts.

export interface ManageView {
  notice?: { kind: 'ok' | 'error' | 'info'; text: string };
  /** What the person typed, shown again beside the errors when a change was refused. */
  form?: { label?: string; alertThreshold?: string; webhookUrl?: string };
  errors?: { label?: string; alertThreshold?: string; webhookUrl?: string };
}

function scanForm(viewer: Viewer, site: MonitoredSite): Html {
  if (site.status === 'paused')
    return html`<p class="muted">Paused: it is not scanned until you resume it.</p>`;
  return html`<form method="post" action="/console/sites/${site.id}/scan" class="inline">${csrfField(viewer.csrf)}<button type="submit">Scan now</button></form>`;
}

function settingsForm(viewer: Viewer, site: MonitoredSite, m: ManageView): Html {
  const f = m.form ?? {};
  const e = m.errors ?? {};
  const own = site.site_type === 'own';
  const invalid = (field: string | undefined) => (field ? html` aria-invalid="true"` : '');
  return html`<form method="post" action="/console/sites/${site.id}/settings" class="grid-form">${csrfField(viewer.csrf)}
<div class="field"><label for="site-label">Label</label><input id="site-label" name="label" type="text" maxlength="200" required value="${f.label ?? site.label}"${invalid(e.label)}>${fieldError('label', e.label)}</div>
${
  own
    ? html`<div class="field"><label for="site-threshold">Alert threshold <span class="muted">(points of drop, 1–100)</span></label><input id="site-threshold" name="alert_threshold" type="number" min="1" max="100" required value="${f.alertThreshold ?? String(site.alert_threshold)}"${invalid(e.alertThreshold)}>${fieldError('alert_threshold', e.alertThreshold)}</div>
<div class="field"><label for="site-webhook">Alert webhook <span class="muted">(optional; empty removes it)</span></label><input id="site-webhook" name="webhook_url" type="text" inputmode="url" maxlength="2048" value="${f.webhookUrl ?? site.webhook_url ?? ''}"${invalid(e.webhookUrl)}>${fieldError('webhook_url', e.webhookUrl)}</div>`
    : html`<p class="muted">Competitor sites never alert: they have no threshold or webhook.</p>`
}
<button type="submit">Save changes</button></form>`;
}

export function manageSite(viewer: Viewer, site: MonitoredSite, m: ManageView = {}): Html {
  const paused = site.status === 'paused';
  return html`<section class="card" aria-labelledby="manage-title"><h2 id="manage-title">Manage</h2>
${m.notice ? notice(m.notice.kind, m.notice.text) : ''}
<div class="actions">${scanForm(viewer, site)}
<form method="post" action="/console/sites/${site.id}/status" class="inline">${csrfField(viewer.csrf)}<input type="hidden" name="status" value="${paused ? 'active' : 'paused'}"><button type="submit" class="secondary">${paused ? 'Resume scans' : 'Pause scans'}</button></form></div>
${settingsForm(viewer, site, m)}
<form method="post" action="/console/sites/${site.id}/remove" data-confirm="Remove ${site.label} with its score history and alerts?">${csrfField(viewer.csrf)}<button type="submit" class="danger">Remove ${site.label}</button></form>
</section>`;
}
