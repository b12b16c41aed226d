import { type Html, html, raw } from '../../shared/html.ts';

// The checkout pages a buy button leads to (GET /checkout/…): what is bought and, with buying
// online, a form whose POST opens a Stripe Checkout Session; with buying offline, a plain notice
// of how the operator enables it. Self-contained, no scripts.

/** The form posts here and is redirected to Stripe's page: form-action names both. */
export const checkoutCsp = (stripeOrigin: string) =>
  `default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self' ${stripeOrigin}; frame-ancestors 'none'`;

// Our own constant markup: raw, or the template would escape its quotes and the `font` rule break.
const CSS =
  raw(`body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f7f8fa}
main{max-width:44rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border:1px solid #e3e6ea;border-radius:8px}
@media (max-width:40rem){main{margin:0;padding:1rem;border:0;border-radius:0}}
h1{font-size:1.5rem;margin-top:0}code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
a{color:#1f5fc4}.price{font-weight:600}.notice{background:#fff8e5;border:1px solid #e8d9a8;padding:.8rem 1rem;border-radius:6px}
.error{background:#fdecec;border:1px solid #e6b3b3;padding:.8rem 1rem;border-radius:6px}
label{display:block;font-weight:600;margin:.8rem 0 .3rem}input[type=url]{width:100%;box-sizing:border-box;padding:.6rem;font:inherit;border:1px solid #8a939e;border-radius:6px}
button{margin-top:1rem;padding:.7rem 1.2rem;font:inherit;font-weight:600;color:#fff;background:#1f5fc4;border:0;border-radius:6px;cursor:pointer;min-height:44px}`);

function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Sightline</title><style>${CSS}</style></head>
<body><main>${body}</main></body></html>`.value;
}

const gbp = (pence: number) => `£${(pence / 100).toFixed(2)}`;

/** Buying offline: said plainly, with what the operator sets to turn it on. */
const OFFLINE = html`<p class="notice"><strong>Buying is offline on this server.</strong> Online payment is not set up yet: its operator enables it by setting <code>STRIPE_SECRET_KEY</code> and <code>STRIPE_WEBHOOK_SECRET</code> (see the <a href="/docs/guides/operations#stripe">operations guide</a>). Please contact the operator of this Sightline server to buy.</p>`;

const errorNote = (error: string | undefined) =>
  error ? html`<p class="error" role="alert">${error}</p>` : '';

export interface BundleView {
  bundleId: string;
  products: { id: string; name: string; pricePence: number | undefined }[];
  pricePence: number;
  targetUrl: string | undefined;
  online: boolean;
  error?: string;
}

export function renderBundlePage(v: BundleView): string {
  const title = v.bundleId === 'complete_audit_bundle' ? 'Complete Audit Bundle' : 'Focus Bundle';
  const action = `/checkout/${v.bundleId}`;
  const buy = v.online
    ? html`<form method="post" action="${action}">
<label for="target_url">Site to audit</label>
<input id="target_url" name="target_url" type="url" required maxlength="500" value="${v.targetUrl ?? ''}" placeholder="https://your-site.example">
<button type="submit">Pay ${gbp(v.pricePence)} with Stripe</button></form>
<p>After payment the audits start at once; your API key (for a new account) and the report links arrive by email.</p>`
    : OFFLINE;
  return page(
    title,
    html`<h1>${title}</h1>${errorNote(v.error)}
${v.targetUrl ? html`<p>For <code>${v.targetUrl}</code>.</p>` : ''}
<ul>${v.products.map((p) => html`<li>${p.name}${p.pricePence !== undefined ? html` <span class="muted">(${gbp(p.pricePence)} alone)</span>` : ''}</li>`)}</ul>
<p class="price">${gbp(v.pricePence)} one-off, ${v.products.length} audits</p>
${buy}
<p>See the <a href="/docs/guides/audits">audits guide</a> for what each audit covers.</p>`,
  );
}

export interface PlanView {
  plan: string;
  pricePence: number;
  sites: number;
  frequency: string;
  email: string | undefined;
  online: boolean;
  error?: string;
}

export function renderPlanPage(v: PlanView): string {
  const name = v.plan[0]!.toUpperCase() + v.plan.slice(1);
  const buy = v.online
    ? html`<form method="post" action="/checkout/plan/${v.plan}">${v.email ? html`<input type="hidden" name="email" value="${v.email}">` : ''}
<button type="submit">Subscribe for ${gbp(v.pricePence)} a month with Stripe</button></form>
<p>Pay with ${v.email ? html`<strong>${v.email}</strong>, your console's address` : 'the email of your Sightline account'}: the plan is set on that account (a new one is made, its API key emailed, if there is none).</p>`
    : OFFLINE;
  return page(
    `${name} plan`,
    html`<h1>${name} monitoring plan</h1>${errorNote(v.error)}
<p>${v.sites} sites scanned ${v.frequency}, alerts when scores change, a public status page.</p>
<p class="price">${gbp(v.pricePence)} a month</p>
${buy}
<p>See the <a href="/docs/guides/monitoring">monitoring guide</a>.</p>`,
  );
}

export function renderCheckoutDone(): string {
  return page(
    'Thank you',
    html`<h1>Thank you</h1><p>Your payment went through. An email is on its way with your API key (for a new account) and what you bought: the audit report links, or your plan.</p><p><a href="/console">Go to the console</a> · <a href="/">Scan another site</a></p>`,
  );
}

export function renderUnknownBundlePage(): string {
  return page(
    'No such bundle',
    html`<h1>No such bundle</h1><p>There is no audit bundle at this address. See the <a href="/docs/guides/audits">audits guide</a> for what can be ordered.</p>`,
  );
}
