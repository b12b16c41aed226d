import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';
import type { WebhookEndpoint } from '../../shared/db/tables/b-sites.ts';
import type { WebhookDelivery } from '../../shared/db/tables/webhook-deliveries.ts';
import { type Html, html } from '../../shared/html.ts';
import { csrfField, notice, renderPage, time, type Viewer } from './layout.ts';

// B webhooks in the console: the account's endpoints with test, rotate, enable/disable and remove,
// a form to add one, and one endpoint's deliveries. Served by api/pages/routes/webhooks.ts.

export interface WebhooksView {
  endpoints: WebhookEndpoint[];
  sites: AgentSite[];
  /** A secret shown this once (after creating or rotating an endpoint). */
  secret?: { endpointId: string; secret: string };
  notice?: { kind: 'ok' | 'error' | 'info'; text: string };
  form?: { url?: string; threshold?: string; error?: string };
}

function secretShownOnce(secret: string): Html {
  return html`<div class="key-once" role="status">
  <p><strong>The endpoint's signing secret.</strong> Copy it now: it is shown only this once. Receivers verify each delivery's <code>webhook-signature</code> with it (Standard Webhooks).</p>
  <div class="row"><label class="visually-hidden" for="new-secret">Signing secret</label><input id="new-secret" class="mono" type="text" readonly value="${secret}"><button type="button" class="secondary" data-copy="new-secret">Copy</button></div>
</div>`;
}

function endpointCard(viewer: Viewer, w: WebhookEndpoint, sites: AgentSite[]): Html {
  const names = w.site_ids
    ? sites.filter((s) => w.site_ids!.includes(s.id)).map((s) => s.label)
    : ['all registered sites'];
  const action = (path: string, label: string, cls = 'secondary small', confirm?: string) =>
    html`<form method="post" action="/console/webhooks/${w.id}/${path}" class="inline"${confirm ? html` data-confirm="${confirm}"` : ''}>${csrfField(viewer.csrf)}<button type="submit" class="${cls}">${label}</button></form>`;
  return html`<li class="card"><h3 class="break"><a href="/console/webhooks/${w.id}">${w.url}</a> ${w.enabled ? '' : html`<span class="pill">disabled</span>`}</h3>
<p class="muted small-text">${w.events.join(', ')} · ${names.join(', ')} · alerts when the overall score falls below ${w.threshold.overall ?? '–'} · added ${time(w.created_at)}</p>
<div class="actions">${action('test', 'Send a test event')}${action('rotate', 'Rotate secret', 'secondary small', 'Issue a new signing secret? The old one stops working at once.')}${action(w.enabled ? 'disable' : 'enable', w.enabled ? 'Disable' : 'Enable')}${action('remove', 'Remove', 'danger small', `Remove the webhook to ${w.url}?`)}</div></li>`;
}

export function renderWebhooks(viewer: Viewer, v: WebhooksView): string {
  const f = v.form ?? {};
  const body = html`<h1>Webhooks</h1>
<p class="muted">After each Monday scan of a registered site, a signed <code>monitoring.alert</code> goes to every enabled endpoint when the site's score falls below its threshold.</p>
${v.notice ? notice(v.notice.kind, v.notice.text) : ''}
${v.secret ? secretShownOnce(v.secret.secret) : ''}
${v.endpoints.length ? html`<ul class="plain">${v.endpoints.map((w) => endpointCard(viewer, w, v.sites))}</ul>` : html`<p class="muted">No webhook endpoints yet.</p>`}
<section class="card" aria-labelledby="add-title"><h2 id="add-title">Add an endpoint</h2>
${f.error ? notice('error', f.error) : ''}
<form method="post" action="/console/webhooks" class="grid-form">${csrfField(viewer.csrf)}
<div class="field"><label for="hook-url">Address (https)</label><input id="hook-url" name="url" type="text" inputmode="url" maxlength="2048" required value="${f.url ?? ''}"></div>
<div class="field"><label for="hook-threshold">Alert below this overall score <span class="muted">(1–100)</span></label><input id="hook-threshold" name="threshold" type="number" min="1" max="100" required value="${f.threshold ?? '50'}"></div>
${
  v.sites.length
    ? html`<fieldset class="field"><legend>Sites <span class="muted">(none ticked: all)</span></legend>${v.sites.map((s) => html`<label class="check"><input type="checkbox" name="site_ids" value="${s.id}"> ${s.label}</label>`)}</fieldset>`
    : ''
}
<button type="submit">Add endpoint</button></form></section>`;
  return renderPage({ title: 'Webhooks', viewer, section: 'webhooks' }, body);
}

export function renderWebhook(viewer: Viewer, w: WebhookEndpoint, deliveries: WebhookDelivery[]): string {
  const rows = deliveries.map(
    (d) =>
      html`<tr><th scope="row">${time(d.created_at)}</th><td data-label="Event">${d.event}</td><td data-label="Outcome">${d.status}${d.http_status ? ` (HTTP ${d.http_status})` : ''}${d.error ? html`<br><span class="muted">${d.error}</span>` : ''}</td><td data-label="Time">${d.latency_ms !== null ? `${d.latency_ms} ms` : '–'}</td></tr>`,
  );
  const body = html`<p class="crumbs"><a href="/console/webhooks">Webhooks</a> › ${w.url}</p>
<h1 class="break">${w.url}</h1>
<section class="card"><h2>Deliveries</h2>${
    deliveries.length
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Deliveries"><table class="data"><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Outcome</th><th scope="col">Time</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p class="muted">Nothing sent yet. Send a test event from the webhooks page.</p>`
  }</section>`;
  return renderPage({ title: `Webhook ${w.url}`, viewer, section: 'webhooks' }, body);
}

export function renderWebhooksNeedTier(viewer: Viewer): string {
  const body = html`<h1>Webhooks</h1>
${notice('info', html`Webhooks come with the Optimisation tier. Your account's tier does not include them; the service's operator can move it (<code>sightline accounts show</code> tells them which tier it has).`)}`;
  return renderPage({ title: 'Webhooks', viewer, section: 'webhooks' }, body);
}
