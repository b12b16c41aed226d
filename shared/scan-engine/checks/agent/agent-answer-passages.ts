import { ANSWER_PASSAGE_WORDS, contentProfile, isAnswerPassage } from '../../../geo-scoring/content.ts';
import { defineCheck, fail, pass, warn } from '../../check.ts';

// Three quotable passages make a page a dependable source; one or two still give an engine
// something to cite.
const TARGET = 3;

export default defineCheck({
  meta: {
    id: 'agent-answer-passages',
    title: 'Page has answer-ready passages',
    failureTitle: 'Page has no answer-ready passages',
    description: `Answer engines quote self-contained paragraphs of ${ANSWER_PASSAGE_WORDS.min}-${ANSWER_PASSAGE_WORDS.max} words that open with a direct statement. Lead each section with such a paragraph instead of a preamble.`,
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const p = contentProfile(Page.html, Page.finalUrl);
    const ready = p.passages.filter(isAnswerPassage);
    const evidence = {
      passages: p.passages.length,
      answerReady: ready.length,
      examples: ready.slice(0, 2).map((x) => x.text.slice(0, 120)),
    };
    if (ready.length >= TARGET) return pass(`${ready.length} answer-ready passages`, evidence);
    if (ready.length > 0)
      return warn(
        `Only ${ready.length} answer-ready passage${ready.length === 1 ? '' : 's'}`,
        ready.length / TARGET,
        evidence,
      );
    return fail(`No answer-ready passages among ${p.passages.length} paragraphs`, evidence);
  },
});
