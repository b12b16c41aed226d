import { defineCheck, fail, graded } from '../../scan-engine/check.ts';
import { contentProfile } from '../content.ts';
import { proseVolume, STATISTICS_TARGET } from '../rubric.ts';

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
    // Figures in prose only (contentProfile): form controls, navigation, card prices and fact
    // lists ("3 beds") are excluded, and thin prose is scaled down (proseVolume).
    if (p.proseWords < 50 || p.sentences === 0) {
      return fail(`Too little prose for statistics (${p.proseWords} words of prose)`, {
        fix: 'Write substantive content that states specific figures',
      });
    }
    const per100 = (100 * p.figures) / p.proseWords;
    const share = p.factSentences / p.sentences;
    const volume = proseVolume(p.proseWords);
    const score =
      volume *
      (0.7 * Math.min(1, per100 / STATISTICS_TARGET.figuresPer100Words) +
        0.3 * Math.min(1, share / STATISTICS_TARGET.factSentenceShare));
    return graded(
      score,
      `${per100.toFixed(1)} figures per 100 words of prose; ${p.factSentences} of ${p.sentences} sentences state one${volume < 1 ? ` (only ${p.proseWords} words of prose)` : ''}`,
      {
        figures: p.figures,
        words: p.proseWords,
        fix:
          score < 0.9
            ? 'Replace vague claims with specific figures (percentages, amounts, dates) and name their source'
            : undefined,
      },
    );
  },
});
