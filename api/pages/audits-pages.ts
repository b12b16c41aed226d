import type { ProductView } from '../../shared/audits/products.ts';
import type { AuditOrder } from '../../shared/db/tables/audit-orders.ts';
import { type Html, html } from '../../shared/html.ts';
import { elapsedLabel } from '../../shared/scans/phases.ts';
import { csrfField, fieldError, notice, renderPage, time, type Viewer } from './layout.ts';

// Audits in the console (variant A): the catalogue with an order form, the account's orders, and
// one order followed until its report is delivered. Handled by api/pages/routes/audits.ts.

type OrderRow = Pick<
  AuditOrder,
  'id' | 'product' | 'target_url' | 'status' | 'created_at' | 'delivered_at' | 'report_summary'
>;

/** How this account gets an audit: ordered on its tier, paid through Stripe, or not at all here. */
export type Buying = 'tier' | 'stripe' | 'offline';

export interface AuditsView {
  products: ProductView[];
  orders: OrderRow[];
  buying: Buying;
  tier: string;
  /** A fresh token per rendered form: a form sent twice places one order. */
  formToken: string;
  notice?: { kind: 'ok' | 'error' | 'info'; text: string };
  /** What was typed, shown again beside the error when an order was refused. */
  form?: { product?: string; targetUrl?: string; webhookUrl?: string; error?: string; webhookError?: string };
  /** Back from Stripe: the page looks again shortly for the order the payment places. */
  awaitingPayment?: boolean;
}

const statusPill = (s: string) => html`<span class="pill ${s}">${s}</span>`;
const productName = (products: ProductView[], id: string) =>
  products.find((p) => p.id === id)?.name ?? id.replace('_', ' ');

const OFFLINE = html`<strong>Buying is offline on this server.</strong> Online payment is not set up: its operator enables it by setting <code>STRIPE_SECRET_KEY</code> and <code>STRIPE_WEBHOOK_SECRET</code> (see the <a href="/docs/guides/operations#stripe">operations guide</a>). Until then, ask the operator of this server for an audit, or for a Pro tier, which orders audits without paying each time.`;

function howItIsPaid(v: AuditsView): Html {
  if (v.buying === 'tier')
    return html`<p class="muted">Your ${v.tier} tier includes audit orders: an order starts at once, and its report appears here when it is ready.</p>`;
  if (v.buying === 'stripe')
    return html`<p class="muted">Each audit is a one-off payment by card through Stripe, with your address (${v.tier} tier). The order starts as soon as the payment is confirmed. A Pro or Agent tier orders without paying each time.</p>`;
  return notice('info', OFFLINE);
}

function orderForm(viewer: Viewer, v: AuditsView): Html {
  const f = v.form ?? {};
  const chosen = f.product ?? v.products[0]?.id;
  const choices = v.products.map(
    (p) =>
      html`<div class="check"><input type="radio" id="product-${p.id}" name="product" value="${p.id}"${p.id === chosen ? html` checked` : ''} aria-describedby="product-${p.id}-hint"><label for="product-${p.id}">${p.name}, £${p.price_gbp}</label><p class="hint" id="product-${p.id}-hint">${p.description}</p></div>`,
  );
  if (v.buying === 'offline')
    return html`<ul>${v.products.map((p) => html`<li><strong>${p.name}</strong>, £${p.price_gbp}: ${p.description}</li>`)}</ul>`;
  return html`<form method="post" action="/console/audits">${csrfField(viewer.csrf)}<input type="hidden" name="form_token" value="${v.formToken}">
<fieldset><legend>Audit</legend>${choices}</fieldset>
<div class="field"><label for="target-url">Site to audit</label><input id="target-url" name="target_url" type="text" inputmode="url" required maxlength="2048" placeholder="https://your-site.example" value="${f.targetUrl ?? ''}"${f.error ? html` aria-invalid="true" aria-describedby="target_url-error"` : ''}>${fieldError('target_url', f.error)}</div>
${v.tier === 'agent' ? html`<div class="field"><label for="webhook-url">Webhook <span class="muted">(optional: we POST the order to it when the report is delivered)</span></label><input id="webhook-url" name="webhook_url" type="text" inputmode="url" maxlength="2048" value="${f.webhookUrl ?? ''}"${f.webhookError ? html` aria-invalid="true" aria-describedby="webhook_url-error"` : ''}>${fieldError('webhook_url', f.webhookError)}</div>` : ''}
<button type="submit">${v.buying === 'tier' ? 'Order the audit' : 'Pay with Stripe'}</button></form>`;
}

export function renderAudits(viewer: Viewer, v: AuditsView): string {
  const rows = v.orders.map(
    (o) =>
      html`<tr><th scope="row"><a href="/console/audits/${o.id}">${productName(v.products, o.product)}</a></th><td data-label="Site" class="break">${o.target_url}</td><td data-label="Status">${statusPill(o.status)}</td><td data-label="Ordered">${time(o.created_at)}</td></tr>`,
  );
  const body = html`<h1>Audits</h1>
${v.notice ? notice(v.notice.kind, v.notice.text) : ''}
<section class="orders" aria-labelledby="orders-title"><h2 id="orders-title">Your orders</h2>
<p class="muted">Orders placed here, bought through Stripe, or placed with your keys (<code>POST /api/v1/audit</code>).</p>
<div class="table-wrap"><table class="data stack"><caption class="visually-hidden">Your audit orders</caption>
<thead><tr><th scope="col">Audit</th><th scope="col">Site</th><th scope="col">Status</th><th scope="col">Ordered</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="4" class="muted">No orders yet.</td></tr>`}</tbody></table></div></section>
<section class="card" aria-labelledby="order-title"><h2 id="order-title">Order an audit</h2>
<p>Each audit crawls the site (up to its page budget), checks every page and reports findings by severity, with the pages affected and how to fix them.</p>
${howItIsPaid(v)}
${orderForm(viewer, v)}</section>`;
  return renderPage(
    {
      title: 'Audits',
      viewer,
      section: 'audits',
      // Once, to /console/audits: the order appears when Stripe's confirmation has arrived.
      head: v.awaitingPayment ? html`<meta http-equiv="refresh" content="4;url=/console/audits">` : undefined,
    },
    body,
  );
}

/** Where a pending order is: waiting for a worker, or being generated (attempt, time so far). */
function progress(o: AuditOrder, nowMs: number): Html {
  if (o.status === 'paid')
    return html`<p role="status" class="phase">Waiting for a free worker <span class="muted">${elapsedLabel(nowMs - o.created_at.getTime())} since it was ordered</span></p>`;
  const since = (o.started_at ?? o.created_at).getTime();
  return html`<p role="status" class="phase">Crawling and checking the site${o.attempts > 1 ? html` (attempt ${o.attempts})` : ''} <span class="muted">${elapsedLabel(nowMs - since)} so far</span></p>`;
}

export interface OrderWebhook {
  /** The account's signing secret (as POST /api/v1/audit returns it to the key holder). */
  secret: string;
  deliveries: {
    event: string;
    status: string;
    http_status: number | null;
    error: string | null;
    created_at: Date;
  }[];
}

/** A webhook order: where it is delivered, how to verify it, and every attempt so far. */
function webhookCard(o: AuditOrder, w: OrderWebhook): Html {
  const rows = w.deliveries.map(
    (d) =>
      html`<tr><th scope="row">${time(d.created_at)}</th><td data-label="Event">${d.event}</td><td data-label="Outcome">${d.status}${d.http_status ? html` (HTTP ${d.http_status})` : ''}${d.error ? html`: ${d.error}` : ''}</td></tr>`,
  );
  return html`<section class="card" aria-labelledby="webhook-title"><h2 id="webhook-title">Webhook</h2>
<p class="break">Delivered to <code>${o.webhook_url}</code>, signed per Standard Webhooks.</p>
<details><summary>Show the signing secret</summary><p><code class="break">${w.secret}</code></p></details>
${rows.length ? html`<div class="table-wrap"><table class="data stack"><caption class="visually-hidden">Webhook attempts</caption><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Outcome</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No attempt yet: it is sent when the report is delivered.</p>`}
</section>`;
}

export function renderOrder(
  viewer: Viewer,
  o: AuditOrder,
  d: {
    productName: string;
    links: { html: string; json: string } | null;
    nowMs: number;
    webhook?: OrderWebhook;
  },
): string {
  const pending = o.status === 'paid' || o.status === 'generating';
  const body = html`<p class="crumbs"><a href="/console/audits">Audits</a> › ${o.id}</p>
<h1>${d.productName} ${statusPill(o.status)}</h1>
<section class="card">${pending ? html`${progress(o, d.nowMs)}<p class="muted small-text">This page refreshes by itself until the report is ready.</p>` : ''}<dl class="facts">
<dt>Site</dt><dd class="break">${o.target_url}</dd>
<dt>Order</dt><dd><code>${o.id}</code></dd>
<dt>Ordered</dt><dd>${time(o.created_at)}</dd>
${o.delivered_at ? html`<dt>Delivered</dt><dd>${time(o.delivered_at)}</dd>` : ''}
${o.error ? html`<dt>Error</dt><dd>${o.error.message}</dd>` : ''}
</dl>
${o.report_summary ? html`<h2>Summary</h2><p>${o.report_summary}</p>` : ''}
${
  d.links
    ? html`<p><a class="button" href="${d.links.html}">Open the report</a> <a href="${d.links.json}">JSON</a></p><p class="muted small-text">The report’s address carries its own token: it can be shared with someone without an account.</p>`
    : pending
      ? html`<p class="muted">The report appears here when it is delivered.</p>`
      : ''
}
</section>
${d.webhook ? webhookCard(o, d.webhook) : ''}`;
  return renderPage(
    {
      title: `Audit ${o.id}`,
      viewer,
      section: 'audits',
      head: pending ? html`<meta http-equiv="refresh" content="5">` : undefined,
    },
    body,
  );
}
