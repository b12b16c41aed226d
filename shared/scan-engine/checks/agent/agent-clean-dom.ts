import { defineCheck, graded } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { logNormalScore } from '../../curves.ts';
import { bodyText, collapse } from '../content/lib/page.ts';

// Text share of the HTML: pages of mostly markup and inline script bury their content; 10% or
// more is a clean page, 2% or less is noise. DOM size follows Lighthouse's dom-size audit (good
// up to about 800 elements, poor past 1,400).
const TEXT_RATIO = { poor: 0.02, good: 0.1 };
const DOM_SIZE = { p10: 800, median: 1400 };

export default defineCheck({
  meta: {
    id: 'agent-clean-dom',
    title: 'Markup is lean relative to its text',
    failureTitle: 'Content is buried in markup',
    description:
      'Agents pay for every byte they read; heavy inline scripts, styles and deeply nested wrappers dilute the text. Move scripts and styles to files and flatten wrapper elements.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const text = collapse(bodyText($));
    const htmlBytes = Buffer.byteLength(Page.html);
    const ratio = htmlBytes === 0 ? 0 : Buffer.byteLength(text) / htmlBytes;
    const elements = $('*').length;
    const ratioScore = Math.max(
      0,
      Math.min(1, (ratio - TEXT_RATIO.poor) / (TEXT_RATIO.good - TEXT_RATIO.poor)),
    );
    const domScore = logNormalScore(DOM_SIZE, elements);
    const score = 0.6 * ratioScore + 0.4 * domScore;
    const evidence = { textRatio: Number(ratio.toFixed(3)), htmlBytes, elements };
    return graded(score, `Text is ${(ratio * 100).toFixed(1)}% of the HTML; ${elements} elements`, evidence);
  },
});
