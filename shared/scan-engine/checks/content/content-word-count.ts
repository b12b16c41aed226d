import { defineCheck, graded } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { mainText, plural, wordCount } from './lib/page.ts';

// Thin pages rarely answer a visitor's question or rank. Yoast's text-length assessment, widely
// used as a content yardstick, wants at least 300 words of body copy; we score linearly up to
// that (270+ passes) and count only main content, not navigation, header or footer.
const TARGET = 300;

export default defineCheck({
  meta: {
    id: 'content-word-count',
    title: 'Page has substantial content',
    failureTitle: 'Page has thin content',
    description:
      'Pages with little text give visitors and search engines little to go on. Aim for at least 300 words of useful main content.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const count = wordCount(mainText(loadDocument(Page.html)));
    const evidence = { words: count };
    if (count >= TARGET * 0.9) return graded(1, `Main content has ${count} words`, evidence);
    return graded(
      count / TARGET,
      `Page has thin content: ${plural(count, 'word')} of main content (aim for ${TARGET}+)`,
      evidence,
    );
  },
});
