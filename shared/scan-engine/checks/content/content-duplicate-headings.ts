import { defineCheck, fail, notApplicable, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { headings, listText, plural } from './lib/page.ts';

// Repeated headings make an outline useless ("Read more", "Details" five times over) and a
// duplicated or empty <h1> blurs what the page is about. A title identical to the <h1> is normal.

export default defineCheck({
  meta: {
    id: 'content-duplicate-headings',
    title: 'Headings are distinct',
    failureTitle: 'Headings are empty or repeated',
    description:
      'Give every heading its own wording so the outline reads as a table of contents, and keep one non-empty <h1>.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const list = headings(loadDocument(Page.html));
    if (list.length === 0) return notApplicable('Page has no headings');
    const h1s = list.filter((h) => h.level === 1);
    const emptyH1 = h1s.filter((h) => !h.text).length;
    const seen = new Map<string, number>();
    for (const h of list) {
      const key = h.text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
      if (key) seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    const repeated = [...seen].filter(([, n]) => n > 1).map(([k, n]) => `"${k}" x${n}`);
    const evidence = { headings: list.length, h1: h1s.map((h) => h.text), repeated };
    if (emptyH1 > 0)
      return fail(`${emptyH1 === 1 ? 'An <h1> is' : `${emptyH1} <h1> headings are`} empty`, evidence);
    if (repeated.length > 0) return warn(`Headings are repeated: ${listText(repeated, 3)}`, 0.6, evidence);
    return pass(`Headings are distinct (${plural(list.length, 'heading')})`, evidence);
  },
});
