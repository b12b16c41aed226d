import type { Plan } from '../db/tables/subscriptions.ts';

// What a Checkout Session sells, carried in the session's metadata so the webhook knows what was
// paid for: a bundle of audits of one site (one order per product) or a monitoring plan.

export type Purchase =
  | { kind: 'bundle'; bundleId: string; products: string[]; targetUrl: string }
  | { kind: 'plan'; plan: Plan };

/** Stripe metadata values hold at most 500 characters. */
export const METADATA_VALUE_MAX = 500;

export function purchaseMetadata(p: Purchase): Record<string, string> {
  if (p.kind === 'plan') return { sightline_kind: 'plan', plan: p.plan };
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
