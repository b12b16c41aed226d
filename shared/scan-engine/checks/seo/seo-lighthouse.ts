import { defineCheck, graded, notApplicable } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'seo-lighthouse',
    title: 'Lighthouse SEO score is good',
    failureTitle: 'Lighthouse SEO score is low',
    description:
      "Lighthouse's SEO category: crawlability, titles, descriptions, link text, hreflang and canonical.",
    requiredArtifacts: ['Lighthouse'],
  },
  run({ Lighthouse }) {
    const score = Lighthouse.categories.seo;
    if (score === null || score === undefined) return notApplicable('Lighthouse did not score SEO');
    return graded(score, `Lighthouse SEO score is ${Math.round(score * 100)}`, { score });
  },
});
