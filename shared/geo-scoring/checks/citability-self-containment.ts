import { defineCheck, fail, graded } from '../../scan-engine/check.ts';
import { contentProfile, isSelfContained } from '../content.ts';

// Short fragments (captions, labels) are not passages; very long ones cannot be quoted whole.
const MIN_WORDS = 15;
const MAX_WORDS = 200;

export default defineCheck({
  meta: {
    id: 'citability-self-containment',
    title: 'Passages stand on their own',
    failureTitle: 'Passages depend on surrounding text',
    description:
      'A quoted passage loses its context. Name the subject instead of opening with "This", "It" or "As mentioned above", and keep each paragraph to one idea of at most 200 words.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const passages = contentProfile(Page.html, Page.finalUrl).passages.filter((x) => x.words >= MIN_WORDS);
    if (passages.length === 0)
      return fail('No passages of prose to quote', { fix: 'Write the content as paragraphs of prose' });
    const standalone = passages.filter((x) => isSelfContained(x) && x.words <= MAX_WORDS);
    const dependent = passages.filter((x) => !isSelfContained(x)).map((x) => x.text.slice(0, 80));
    const tooLong = passages.filter((x) => x.words > MAX_WORDS).length;
    const share = standalone.length / passages.length;
    return graded(share, `${standalone.length} of ${passages.length} passages stand on their own`, {
      dependent: dependent.slice(0, 3),
      tooLong,
      fix:
        share < 0.9
          ? 'Rewrite paragraphs that open with a back-reference, and split paragraphs over 200 words'
          : undefined,
    });
  },
});
