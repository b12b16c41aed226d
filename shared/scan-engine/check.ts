import type { ArtifactMap, ArtifactName } from './artifacts.ts';

// A check is one small module (file name = id): metadata plus a pure run(). Points live in the
// scoring model, not here, so models can be retuned without touching checks.

export type Outcome = 'pass' | 'warn' | 'fail' | 'not_applicable';

export interface CheckResult {
  outcome: Outcome;
  score: number; // 0..1 (ignored for not_applicable)
  /** Human sentence for `issues` (warn/fail) or `passes` (pass). */
  message: string;
  evidence?: Record<string, unknown>;
}

export interface CheckMeta<A extends ArtifactName> {
  id: string; // kebab-case, equals the file name
  title: string; // what passing means, e.g. "Page has a <title>"
  failureTitle: string; // e.g. "Page is missing a <title>"
  description: string; // why it matters and how to fix it (one or two sentences)
  requiredArtifacts: readonly A[];
  /** Artifacts used when present, never required. */
  optionalArtifacts?: readonly ArtifactName[];
}

export interface Check<A extends ArtifactName = ArtifactName> {
  meta: CheckMeta<A>;
  run(artifacts: Pick<ArtifactMap, A> & Partial<ArtifactMap>): CheckResult;
}

/** Helper so a check file gets its artifact types inferred from requiredArtifacts. */
export function defineCheck<const A extends ArtifactName>(check: Check<A>): Check<A> {
  return check;
}

// Result helpers keep check bodies short and consistent.
export const pass = (message: string, evidence?: Record<string, unknown>): CheckResult => ({
  outcome: 'pass',
  score: 1,
  message,
  evidence,
});
export const fail = (message: string, evidence?: Record<string, unknown>): CheckResult => ({
  outcome: 'fail',
  score: 0,
  message,
  evidence,
});
export const warn = (message: string, score = 0.5, evidence?: Record<string, unknown>): CheckResult => ({
  outcome: 'warn',
  score,
  message,
  evidence,
});
export const notApplicable = (message: string): CheckResult => ({
  outcome: 'not_applicable',
  score: 0,
  message,
});

/** A graded result: pass at >= 0.9, warn at >= 0.5, else fail. */
export function graded(score: number, message: string, evidence?: Record<string, unknown>): CheckResult {
  const s = Math.max(0, Math.min(1, score));
  return { outcome: s >= 0.9 ? 'pass' : s >= 0.5 ? 'warn' : 'fail', score: s, message, evidence };
}
