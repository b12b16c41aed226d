import { type CheckResult, defineCheck } from '../../check.ts';

// Full mode: share of visible text under 12 px at 375 px width. Lighthouse's font-size audit
// fails a page when less than 60% of its text is legible; we fail at the same line, and pass
// only when at least 90% is.

export default defineCheck({
  meta: {
    id: 'mobile-small-text',
    title: 'Text is legible on a phone',
    failureTitle: 'Much of the text is too small on a phone',
    description: 'Keep body text at 16 px and nothing under 12 px on small screens.',
    requiredArtifacts: ['Rendered'],
  },
  run({ Rendered }): CheckResult {
    const small = Math.max(0, Math.min(1, Rendered.mobile.smallTextRatio));
    const legible = 1 - small;
    const pct = `${Math.round(small * 100)}%`;
    const evidence = { smallTextRatio: small };
    if (legible >= 0.9)
      return {
        outcome: 'pass',
        score: legible,
        message: `Text is legible on a phone (${pct} under 12 px)`,
        evidence,
      };
    const message = `${pct} of the text is under 12 px on a phone`;
    return { outcome: legible >= 0.6 ? 'warn' : 'fail', score: legible, message, evidence };
  },
});
