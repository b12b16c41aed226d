// The `competitor` dimension: where an own site stands against the account's tracked competitors,
// as the share of them it is ahead of (a tie counts half). 100 = ahead of all of them, 0 = behind
// all; null when no competitor has a score yet (the member is then omitted).
export function competitorStanding(own: number, competitors: readonly number[]): number | null {
  if (competitors.length === 0) return null;
  let points = 0;
  for (const c of competitors) points += own > c ? 1 : own === c ? 0.5 : 0;
  return Math.round((100 * points) / competitors.length);
}
