import { defineCheck, fail, graded, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { listText, metaContent } from '../content/lib/page.ts';

// The four properties the Open Graph protocol marks as required for every page.
const REQUIRED = ['og:title', 'og:type', 'og:image', 'og:url'];

export default defineCheck({
  meta: {
    id: 'seo-open-graph',
    title: 'Page has Open Graph tags',
    failureTitle: 'Open Graph tags are missing',
    description:
      'Open Graph tags (og:title, og:type, og:image, og:url) control the card shown when the page is shared on social networks and in chat apps.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const values = Object.fromEntries(REQUIRED.map((p) => [p, metaContent($, p)]));
    const missing = REQUIRED.filter((p) => !values[p]);
    const empty = REQUIRED.filter((p) => values[p] === '');
    const evidence = { values, missing };
    if (missing.length === 0) return pass('Page has the required Open Graph tags', evidence);
    const what = empty.length === missing.length ? 'empty' : 'missing or empty';
    if (missing.length === REQUIRED.length) {
      return fail(
        empty.length > 0 ? `Open Graph tags are empty: ${listText(missing)}` : 'Open Graph tags are missing',
        evidence,
      );
    }
    return graded(
      1 - missing.length / REQUIRED.length,
      `Open Graph tags ${what}: ${listText(missing)}`,
      evidence,
    );
  },
});
