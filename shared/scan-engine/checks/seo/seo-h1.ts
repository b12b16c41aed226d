import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { headings } from '../content/lib/page.ts';

export default defineCheck({
  meta: {
    id: 'seo-h1',
    title: 'Page has a single <h1> heading',
    failureTitle: 'Page has no <h1> heading',
    description:
      'The <h1> states what the page is about, for readers and for search engines. Use exactly one, with text, near the top of the content.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const h1s = headings(loadDocument(Page.html)).filter((h) => h.level === 1 && /^h1$/.test(h.el.name));
    if (h1s.length === 0) return fail('Page has no <h1> heading');
    const texts = h1s.map((h) => h.text);
    const evidence = { h1: texts };
    if (texts.every((t) => !t)) return fail('The <h1> heading is empty', evidence);
    if (h1s.length > 1)
      return warn(`Page has ${h1s.length} <h1> headings; one states the topic most clearly`, 0.7, evidence);
    return pass(`Page has one <h1>: "${texts[0]}"`, evidence);
  },
});
