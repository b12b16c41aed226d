import type { Plan } from '../db/tables/subscriptions.ts';

// What a Checkout Session sells, carried in the session's metadata so the webhook knows what was
// paid for: a bundle of audits of one site (one order per product), one audit product ordered in
// the console, or a monitoring plan.

export type Purchase =
  | { kind: 'bundle'; bundleId: string; products: string[]; targetUrl: string }
  | { kind: 'audit'; product: string; targetUrl: string }
  | { kind: 'plan'; plan: Plan };

/** A purchase of audits: the products it orders, each once, for its target. */
export type AuditPurchase = Extract<Purchase, { kind: 'bundle' | 'audit' }>;
export const purchasedProducts = (p: AuditPurchase): string[] =>
  p.kind === 'audit' ? [p.product] : p.products;

/** Stripe metadata values hold at most 500 characters. */
export const METADATA_VALUE_MAX = 500;

export function purchaseMetadata(p: Purchase): Record<string, string> {
  if (p.kind === 'plan') return { sightline_kind: 'plan', plan: p.plan };
  if (p.kind === 'audit') return { sightline_kind: 'audit', product: p.product, target_url: p.targetUrl };
  return {
    sightline_kind: 'bundle',
    bundle: p.bundleId,
    products: p.products.join(','),
    target_url: p.targetUrl,
  };
}

/** The purchase a session's metadata describes, or null when it is not one of ours (a payment link). */
export function purchaseFromMetadata(meta: Record<string, string> | null | undefined): Purchase | null {
  if (!meta) return null;
  if (meta.sightline_kind === 'plan' && (meta.plan === 'growth' || meta.plan === 'agency')) {
    return { kind: 'plan', plan: meta.plan };
  }
  if (meta.sightline_kind === 'audit' && meta.product && meta.target_url) {
    return { kind: 'audit', product: meta.product, targetUrl: meta.target_url };
  }
  if (meta.sightline_kind === 'bundle' && meta.bundle && meta.products && meta.target_url) {
    return {
      kind: 'bundle',
      bundleId: meta.bundle,
      products: meta.products.split(',').filter(Boolean),
      targetUrl: meta.target_url,
    };
  }
  return null;
}
