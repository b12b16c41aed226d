import { defineCheck, graded, notApplicable } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'a11y-lighthouse',
    title: 'Lighthouse accessibility score is good',
    failureTitle: 'Lighthouse accessibility score is low',
    description: "Lighthouse's accessibility category: axe rules weighted by impact.",
    requiredArtifacts: ['Lighthouse'],
  },
  run({ Lighthouse }) {
    const score = Lighthouse.categories.accessibility;
    if (score === null || score === undefined) return notApplicable('Lighthouse did not score accessibility');
    return graded(score, `Lighthouse accessibility score is ${Math.round(score * 100)}`, { score });
  },
});
