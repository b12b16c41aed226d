import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { describe, example } from './lib/names.ts';
import { violations } from './lib/score.ts';

// WCAG 2.4.3 (axe tabindex; Lighthouse weight 7): a positive tabindex moves the element ahead of
// everything else in the tab order, which breaks the order users expect.

export default defineCheck({
  meta: {
    id: 'a11y-tabindex',
    title: 'No element has a positive tabindex',
    failureTitle: 'Elements have a tabindex above 0',
    description: 'Use tabindex="0" or "-1" only, and order focusable elements in the source instead.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const focusable = $('[tabindex], a[href], button, input, select, textarea').toArray();
    const positive = $('[tabindex]')
      .toArray()
      .filter((el) => Number.parseInt(el.attribs.tabindex ?? '', 10) > 0);
    return violations(
      positive.length,
      focusable.length,
      {
        none: 'Page has no focusable elements',
        pass: 'Tab order follows the page (no positive tabindex)',
        fail: `${positive.length} element${positive.length > 1 ? 's have' : ' has'} a tabindex above 0${example(positive)}`,
      },
      { positive: positive.slice(0, 10).map(describe) },
    );
  },
});
