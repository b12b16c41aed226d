import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { listText } from '../content/lib/page.ts';

// WCAG 4.1.1 / 1.3.1 (axe duplicate-id-aria; Lighthouse weight 10): when an id that a <label for>,
// aria-labelledby or aria-describedby points at is duplicated, assistive technology may read the
// wrong element. Other duplicate ids are invalid HTML but rarely harm users.
const REFERENCING = [
  'for',
  'aria-labelledby',
  'aria-describedby',
  'aria-controls',
  'aria-owns',
  'aria-activedescendant',
  'headers',
];

export default defineCheck({
  meta: {
    id: 'a11y-duplicate-ids',
    title: 'Element ids are unique',
    failureTitle: 'Element ids are duplicated',
    description:
      'Labels and ARIA relationships find elements by id; a duplicated id can attach a label to the wrong field. Make every id unique.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const counts = new Map<string, number>();
    $('[id]').each((_, el) => {
      const id = el.attribs.id ?? '';
      if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
    });
    const duplicated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    if (duplicated.length === 0) return pass('Element ids are unique');
    const referenced = new Set<string>();
    for (const attr of REFERENCING) {
      $(`[${attr}]`).each((_, el) => {
        for (const id of ($(el).attr(attr) ?? '').split(/\s+/)) referenced.add(id);
      });
    }
    const harmful = duplicated.filter((id) => referenced.has(id));
    const evidence = { duplicated, referenced: harmful };
    if (harmful.length > 0)
      return fail(`Duplicated ids are used by labels or ARIA: ${listText(harmful)}`, evidence);
    return warn(`${duplicated.length} ids are used more than once: ${listText(duplicated)}`, 0.7, evidence);
  },
});
