import { type CheckResult, fail, notApplicable, pass, warn } from '../../../check.ts';

// Lighthouse scores each accessibility audit pass/fail: one failing element fails it, because
// the people who meet that element are blocked all the same. We keep that line (any violation
// at most 0.6) but let the share of failing elements separate a straggler from a pattern:
// a few stragglers warn, a widespread failure fails.

export function violations(
  bad: number,
  total: number,
  messages: { none: string; pass: string; fail: string },
  evidence?: Record<string, unknown>,
): CheckResult {
  if (total === 0) return notApplicable(messages.none);
  if (bad === 0) return pass(messages.pass, evidence);
  const score = 0.6 * (1 - Math.min(bad, total) / total);
  return score >= 0.5 ? warn(messages.fail, score, evidence) : { ...fail(messages.fail, evidence), score };
}
