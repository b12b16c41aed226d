// Honest uncertainty for citation rates (docs/geo.md): a 95% Wilson score interval, and a
// week-over-week change labelled as noise when the previous rate lies inside this interval.

export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
  level: 0.95;
}

export function wilson(successes: number, trials: number, z = Z95): Interval {
  if (trials <= 0) return { low: 0, high: 1, level: 0.95 };
  const p = successes / trials;
  const z2 = z * z;
  const denom = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denom;
  return { low: round4(Math.max(0, centre - half)), high: round4(Math.min(1, centre + half)), level: 0.95 };
}

export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export type ChangeLabel = 'noise' | 'up' | 'down';

export function changeLabel(current: number, interval: Interval, previous: number): ChangeLabel {
  if (previous >= interval.low && previous <= interval.high) return 'noise';
  return current > previous ? 'up' : 'down';
}
