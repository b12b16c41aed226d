import { defineCheck, fail, graded } from '../../check.ts';
import { contentProfile } from '../../geo/content.ts';
import { STATISTICS_TARGET } from '../../geo/rubric.ts';

export default defineCheck({
  meta: {
    id: 'citability-statistics',
    title: 'Content is dense with statistics',
    failureTitle: 'Content has few statistics',
    description:
      'Adding statistics was one of the strongest levers in the GEO study. Back claims with figures: percentages, amounts, counts and dates, ideally with their source.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const p = contentProfile(Page.html, Page.finalUrl);
    if (p.words < 50 || p.sentences === 0) {
      return fail(`Too little text for statistics (${p.words} words)`, {
        fix: 'Write substantive content that states specific figures',
      });
    }
    const per100 = (100 * p.figures) / p.words;
    const share = p.factSentences / p.sentences;
    const score =
      0.7 * Math.min(1, per100 / STATISTICS_TARGET.figuresPer100Words) +
      0.3 * Math.min(1, share / STATISTICS_TARGET.factSentenceShare);
    return graded(
      score,
      `${per100.toFixed(1)} figures per 100 words; ${p.factSentences} of ${p.sentences} sentences state one`,
      {
        figures: p.figures,
        words: p.words,
        fix:
          score < 0.9
            ? 'Replace vague claims with specific figures (percentages, amounts, dates) and name their source'
            : undefined,
      },
    );
  },
});
