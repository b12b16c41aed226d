import { defineCheck, fail, graded, notApplicable, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { sections } from './lib/page.ts';

// Readers scan headings before they read. Yoast's subheading-distribution guideline: no more
// than 300 words under one heading (350 still acceptable); a long text with no subheadings at all
// is a wall of text.
const GOOD = 300;
const ACCEPTABLE = 350;
const MIN_WORDS = 150;

export default defineCheck({
  meta: {
    id: 'content-heading-outline',
    title: 'Content is broken up by headings',
    failureTitle: 'Content has long stretches without headings',
    description:
      'Break text into sections of at most ~300 words, each under a descriptive heading, so readers can scan for what they need.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const list = sections(loadDocument(Page.html));
    const total = list.reduce((s, x) => s + x.words, 0);
    if (total < MIN_WORDS) return notApplicable(`Too little text to need an outline (${total} words)`);
    const headed = list.filter((s) => s.heading !== null);
    const longest = list.reduce((a, b) => (b.words > a.words ? b : a));
    const evidence = {
      words: total,
      headings: headed.length,
      sections: list.map((s) => ({ heading: s.heading, words: s.words })),
    };
    if (headed.length === 0) return fail(`${total} words of content have no headings`, evidence);
    const where = longest.heading ? `under "${longest.heading.slice(0, 50)}"` : 'before the first heading';
    if (longest.words <= GOOD) return pass(`Content is broken up by ${headed.length} headings`, evidence);
    if (longest.words <= ACCEPTABLE)
      return graded(0.9, `Content is broken up by ${headed.length} headings`, evidence);
    return graded(
      Math.max(0.2, ACCEPTABLE / longest.words),
      `A section runs ${longest.words} words without a heading (${where}); split it at about ${GOOD}`,
      evidence,
    );
  },
});
