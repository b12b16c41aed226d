import { contentProfile } from '../../../geo-scoring/content.ts';
import { defineCheck, fail, graded } from '../../check.ts';

// Concrete facts make a passage worth citing (Aggarwal et al., "GEO", KDD 2024: adding statistics
// was among the strongest levers). Full marks at one figure per 100 words and a quarter of
// sentences stating a number or date.
const FIGURES_PER_100_WORDS = 1;
const FACT_SENTENCE_SHARE = 0.25;

export default defineCheck({
  meta: {
    id: 'agent-factual-density',
    title: 'Content states facts with numbers and dates',
    failureTitle: 'Content has few concrete facts',
    description:
      'Statements with figures and dates ("costs £12 a month", "since 2019") are what answer engines quote. Replace vague claims with specific numbers, dates and amounts.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const p = contentProfile(Page.html, Page.finalUrl);
    // Figures in prose only (contentProfile): prices on cards and option values are not facts stated.
    if (p.proseWords < 50 || p.sentences === 0)
      return fail(`Too little prose to state facts (${p.proseWords} words of prose)`, {
        words: p.proseWords,
      });
    const per100 = (100 * p.figures) / p.proseWords;
    const share = p.factSentences / p.sentences;
    const score =
      0.5 * Math.min(1, per100 / FIGURES_PER_100_WORDS) + 0.5 * Math.min(1, share / FACT_SENTENCE_SHARE);
    const evidence = {
      figures: p.figures,
      words: p.proseWords,
      factSentences: p.factSentences,
      sentences: p.sentences,
    };
    return graded(
      score,
      `${p.factSentences} of ${p.sentences} sentences state a figure or date (${per100.toFixed(1)} figures per 100 words)`,
      evidence,
    );
  },
});
