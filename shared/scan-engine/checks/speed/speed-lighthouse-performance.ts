import { defineCheck, graded, notApplicable } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'speed-lighthouse-performance',
    title: 'Lighthouse performance score is good',
    failureTitle: 'Lighthouse performance score is low',
    description:
      "Lighthouse's performance category: its weighted lab metrics (FCP, LCP, TBT, CLS, Speed Index).",
    requiredArtifacts: ['Lighthouse'],
  },
  run({ Lighthouse }) {
    const score = Lighthouse.categories.performance;
    if (score === null || score === undefined) return notApplicable('Lighthouse did not score performance');
    return graded(score, `Lighthouse performance score is ${Math.round(score * 100)}`, { score });
  },
});
