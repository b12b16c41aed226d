// Scoring curves for numeric signals, shared by checks (pure: no imports).

/** Lighthouse's log-normal scoring curve: p10 scores 0.9, the median scores 0.5. */
export function logNormalScore({ p10, median }: { p10: number; median: number }, value: number): number {
  if (value <= 0) return 1;
  // Complementary log-normal CDF, as in lighthouse core/lib/statistics.js.
  const standardizedX = (Math.log(value) - Math.log(median)) / (Math.SQRT2 * sigma(p10, median));
  const score = (1 - erf(standardizedX)) / 2;
  return Math.max(0, Math.min(1, score));
}
function sigma(p10: number, median: number): number {
  // INVERSE_ERFC_ONE_FIFTH: erfc^-1(0.2), so that value p10 maps to 0.9.
  const INVERSE_ERFC_ONE_FIFTH = 0.9061938024368232;
  return Math.abs(Math.log(p10) - Math.log(median)) / (Math.SQRT2 * INVERSE_ERFC_ONE_FIFTH);
}
function erf(x: number): number {
  // Abramowitz and Stegun 7.1.26, max error 1.5e-7 (the same approximation Lighthouse uses).
  const sign = Math.sign(x);
  const ax = Math.abs(x);
  const a1 = 0.254829592,
    a2 = -0.284496736,
    a3 = 1.421413741,
    a4 = -1.453152027,
    a5 = 1.061405429,
    p = 0.3275911;
  const t = 1 / (1 + p * ax);
  const y = 1 - ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t * Math.exp(-ax * ax);
  return sign * y;
}
