import { defineCheck, fail, graded } from '../../scan-engine/check.ts';
import { contentProfile, type Passage, startsDirect } from '../content.ts';
import { ANSWER_BLOCK_WORDS } from '../rubric.ts';

const { ideal, acceptable, max } = ANSWER_BLOCK_WORDS;
const MAX_SECTIONS = 12;

/** 0..1 for a passage that opens a section: right length, and a direct statement first. */
function blockQuality(p: Passage): number {
  const length =
    p.words >= ideal.min && p.words <= ideal.max
      ? 1
      : p.words >= acceptable.min && p.words <= acceptable.max
        ? 0.75
        : p.words <= max
          ? 0.5
          : 0.25;
  return length * (startsDirect(p) ? 1 : 0.5);
}

export default defineCheck({
  meta: {
    id: 'citability-answer-blocks',
    title: 'Sections open with direct answers',
    failureTitle: 'Sections do not open with direct answers',
    description: `Answer engines lift the first paragraph under a heading. Open each section with a ${ideal.min}-${ideal.max} word paragraph that answers the heading directly, then elaborate.`,
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const p = contentProfile(Page.html, Page.finalUrl);
    const sections = p.sections.filter((s) => s.heading !== null && s.lead !== null).slice(0, MAX_SECTIONS);
    if (sections.length > 0) {
      const scores = sections.map((s) => blockQuality(s.lead as Passage));
      const good = scores.filter((s) => s >= 0.75).length;
      const score = scores.reduce((a, b) => a + b, 0) / scores.length;
      return graded(
        score,
        `${good} of ${sections.length} sections open with a direct answer of a quotable length`,
        {
          sections: sections.length,
          good,
          fix:
            good < sections.length
              ? `Start each section with a ${ideal.min}-${ideal.max} word direct answer`
              : undefined,
        },
      );
    }
    // No headed sections: the opening paragraphs are all an engine has, and nothing anchors them.
    const first = p.passages.slice(0, 3);
    if (first.length === 0)
      return fail('No paragraphs to quote', {
        fix: 'Write the content as paragraphs under descriptive headings',
      });
    const score = (0.6 * first.map(blockQuality).reduce((a, b) => a + b, 0)) / first.length;
    return graded(score, 'No headed sections; only the opening paragraphs can serve as answers', {
      sections: 0,
      fix: 'Split the content into sections under descriptive (ideally question) headings, each opening with a direct answer',
    });
  },
});
