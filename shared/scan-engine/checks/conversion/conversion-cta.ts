import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { listText } from '../content/lib/page.ts';
import { findCtas, headlineOffset } from './lib/cta.ts';

// Visitors decide within the first screen whether to act, so the main call to action belongs
// above the fold. Full mode reads the CTAs the browser saw in the first desktop viewport; quick
// mode estimates the first screen as the first ~700 characters of visible text (navigation, a
// headline, a sentence or two: about what a 1366x768 hero shows).
const FOLD_CHARS = 700;

const quote = (texts: string[]) =>
  listText(
    [...new Set(texts)].map((t) => `"${t}"`),
    3,
  );

export default defineCheck({
  meta: {
    id: 'conversion-cta',
    title: 'Call to action above the fold',
    failureTitle: 'No call to action above the fold',
    description:
      'Put one clear, action-worded button ("Start free trial", "Book a call") in the first screen, next to the headline, and repeat it further down.',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['Rendered'],
  },
  run({ Page, Rendered }) {
    const $ = loadDocument(Page.html);
    const all = findCtas($);
    const below = all.filter((c) => c.offset >= FOLD_CHARS).map((c) => c.text);
    if (Rendered) {
      const seen = Rendered.desktop.aboveFoldCtas;
      const evidence = { source: 'render', aboveFold: seen, elsewhere: below };
      if (seen.length > 0) return pass(`Call to action above the fold: ${quote(seen)}`, evidence);
      if (all.length > 0)
        return warn(
          `No call to action in the first screen; the first is further down (${quote(all.map((c) => c.text))})`,
          0.5,
          evidence,
        );
      return fail('No call to action found on the page', evidence);
    }
    const above = all.filter((c) => c.offset < FOLD_CHARS).map((c) => c.text);
    const headline = headlineOffset($);
    const evidence = { source: 'markup', aboveFold: above, elsewhere: below, headlineOffset: headline };
    if (above.length > 0) {
      const hero = headline !== null && headline < FOLD_CHARS ? ' with a headline' : '';
      return pass(`Call to action near the top of the page${hero}: ${quote(above)}`, evidence);
    }
    if (below.length > 0)
      return warn(
        `No call to action near the top of the page; the first is further down (${quote(below)})`,
        0.5,
        evidence,
      );
    return fail(
      'No call to action found on the page (no button or link like "Sign up", "Buy", "Contact us")',
      evidence,
    );
  },
});
