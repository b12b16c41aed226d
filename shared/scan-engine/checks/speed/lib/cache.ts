// Cache lifetimes as Lighthouse's cache insight judges them (trace_engine insights/Cache.js).

// Chrome's observed age of a resource at a cache hit, in hours, at each decile (0th, 10th, ...):
// RESOURCE_AGE_IN_HOURS_DECILES. Longer lifetimes give diminishing returns.
const AGE_DECILES_HOURS = [0, 0.2, 1, 3, 8, 12, 24, 48, 72, 168, 8760, Number.POSITIVE_INFINITY];

/**
 * Cache lifetime in seconds from Cache-Control; 0 when caching is off or not declared. Unlike
 * Lighthouse we count no-store/no-cache as 0 rather than skipping it: on images, fonts, CSS and
 * JavaScript it is a misconfiguration, not a choice.
 */
export function cacheLifetime(cacheControl: string | null): number {
  if (!cacheControl) return 0;
  const cc = cacheControl.toLowerCase();
  if (/\b(no-store|no-cache)\b/.test(cc)) return 0;
  const m = /\bmax-age\s*=\s*"?(\d+)/.exec(cc);
  return m ? Number(m[1]) : 0;
}

/** Probability that a cached copy with this lifetime is still fresh on the next visit. */
export function cacheHitProbability(seconds: number): number {
  const hours = seconds / 3600;
  const upper = AGE_DECILES_HOURS.findIndex((d) => d >= hours);
  if (upper === AGE_DECILES_HOURS.length - 1) return 1;
  if (upper <= 0) return 0;
  const hi = AGE_DECILES_HOURS[upper] as number;
  const lo = AGE_DECILES_HOURS[upper - 1] as number;
  return (upper - 1) / 10 + ((hours - lo) / (hi - lo)) * 0.1;
}
