// Small helpers every section shares, so all tables read the same way.

/** Nearest-rank percentile of an ascending list (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarise(samples: readonly number[]): {
  p50: number;
  p99: number;
  max: number;
  mean: number;
} {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN, mean };
}

/** Median of a list (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const sec = (v: number) => `${v.toFixed(1)} s`;
export const ms = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`;
export const perSecond = (v: number) => `${Math.round(v).toLocaleString('en-GB')} req/s`;

/**
 * A measured ratio next to its goal (issue 17), e.g. "0.82× bare Koa (goal ≥ 0.7×, met)". `atMost`
 * goals (time ratios, costs) are met at or below the target, the others at or above it.
 */
export function goal(
  ratio: number,
  target: number,
  of: string,
  direction: 'atLeast' | 'atMost' = 'atLeast',
): string {
  const met = direction === 'atLeast' ? ratio >= target : ratio <= target;
  return `${ratio.toFixed(2)}× ${of} (goal ${direction === 'atLeast' ? '≥' : '≤'} ${target}×, ${met ? 'met' : 'not met'})`;
}

/** An absolute value next to its limit: "38.2 ms (goal < 50 ms, met)". */
export function limit(
  value: number,
  max: number,
  unit: string,
  format: (v: number) => string = String,
): string {
  return `${format(value)} ${unit} (goal < ${format(max)} ${unit}, ${value < max ? 'met' : 'not met'})`;
}

/** A rate next to its floor: "52,310 events/s (goal ≥ 50,000 events/s, met)". */
export function atLeast(value: number, min: number, unit: string): string {
  const f = (v: number) => Math.round(v).toLocaleString('en-GB');
  return `${f(value)} ${unit} (goal ≥ ${f(min)} ${unit}, ${value >= min ? 'met' : 'not met'})`;
}

/** A count next to its ceiling: "4 requests (goal ≤ 4, met)". */
export function atMost(value: number, max: number, unit: string): string {
  return `${value} ${unit} (goal ≤ ${max}, ${value <= max ? 'met' : 'not met'})`;
}
