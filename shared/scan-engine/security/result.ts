import type { CheckResult } from '../check.ts';
import { resultSpec } from './score-table.ts';

/**
 * A security check's result from its Observatory-style result id. The `modifiers` dimension
 * method looks the result id up in the score table when it scores; the modifier copied into
 * evidence here is for readers only.
 * Outcome: Observatory passes without a penalty pass; a pass that still costs points warns;
 * everything else fails, scoring lower the heavier its penalty (for weighted models).
 */
export function securityResult(
  resultId: string,
  detail?: string,
  evidence: Record<string, unknown> = {},
): CheckResult {
  const spec = resultSpec(resultId);
  const message = detail ? `${spec.summary}: ${detail}` : spec.summary;
  const ev = { ...evidence, result: resultId, modifier: spec.modifier };
  if (spec.pass && spec.modifier >= 0) return { outcome: 'pass', score: 1, message, evidence: ev };
  if (spec.pass) return { outcome: 'warn', score: 0.5, message, evidence: ev };
  return { outcome: 'fail', score: Math.max(0, 0.5 * (1 + spec.modifier / 50)), message, evidence: ev };
}
