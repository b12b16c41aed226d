import { type Html, html, raw } from '../../shared/html.ts';

// The page a recommendation's stripeLink leads to when no payment link is configured: what the
// bundle holds and how to order it through the API. Self-contained, no scripts.

export const CHECKOUT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Our own constant markup: raw, or the template would escape its quotes and the `font` rule break.
const CSS =
  raw(`body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f7f8fa}
main{max-width:44rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border:1px solid #e3e6ea;border-radius:8px}
h1{font-size:1.5rem;margin-top:0}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
pre{background:#f4f5f7;padding:.8rem 1rem;overflow-x:auto;border-radius:6px}a{color:#1f6feb}.price{font-weight:600}`);

function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Sightline</title><style>${CSS}</style></head>
<body><main>${body}</main></body></html>`.value;
}

export interface CheckoutView {
  bundleId: string;
  products: { id: string; name: string; pricePence: number | undefined }[];
  baseUrl: string;
}

const gbp = (pence: number) => `£${(pence / 100).toFixed(2)}`;

export function renderCheckoutPage(v: CheckoutView): string {
  const title = v.bundleId === 'complete_audit_bundle' ? 'Complete Audit Bundle' : 'Focus Bundle';
  const first = v.products[0]?.id ?? 'seo_audit';
  return page(
    title,
    html`<h1>${title}</h1>
<p>Online payment is not set up on this Sightline server yet (its operator sets <code>STRIPE_LINK_COMPLETE</code> and <code>STRIPE_LINK_FOCUS</code> to payment pages). You can still order the audits of this bundle:</p>
<ul>${v.products.map((p) => html`<li><code>${p.id}</code>: ${p.name}${p.pricePence !== undefined ? html` <span class="price">${gbp(p.pricePence)}</span>` : ''}</li>`)}</ul>
<p>Each is one order through the API with a variant A key (Pro or Agent tier):</p>
<pre>curl -X POST ${v.baseUrl}/api/v1/audit \\
  -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\
  -d '{"product":"${first}","target_url":"https://your-site.example"}'</pre>
<p>The report arrives by webhook or by polling the order. See the <a href="/docs/guides/audits">audits guide</a> and the <a href="/docs">API reference</a>, or ask the operator of this server.</p>`,
  );
}

export function renderUnknownBundlePage(): string {
  return page(
    'No such bundle',
    html`<h1>No such bundle</h1><p>There is no audit bundle at this address. See the <a href="/docs/guides/audits">audits guide</a> for what can be ordered.</p>`,
  );
}
