import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { isHiddenByMarkup, plural } from '../content/lib/page.ts';
import { accessibleName, describe, example } from './lib/names.ts';
import { violations } from './lib/score.ts';

// WCAG 1.3.1 / 4.1.2 (axe label, select-name): form fields need a programmatic label. As in axe,
// a placeholder counts as a name here; conversion-forms judges it as a usability matter.
const NOT_FIELDS = new Set(['hidden', 'submit', 'reset', 'button', 'image']);

export default defineCheck({
  meta: {
    id: 'a11y-form-labels',
    title: 'Form fields have labels',
    failureTitle: 'Form fields have no label',
    description:
      'Without a label, screen-reader users hear only "edit text" or "combo box". Tie a <label for> to every field, or give it an aria-label.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const fields = $('input, select, textarea')
      .toArray()
      .filter((el) => !isHiddenByMarkup(el) && !NOT_FIELDS.has((el.attribs.type ?? '').toLowerCase()));
    const unlabelled = fields.filter((el) => accessibleName($, el).name === '');
    return violations(
      unlabelled.length,
      fields.length,
      {
        none: 'Page has no form fields',
        pass: `Every form field has a label (${plural(fields.length, 'field')})`,
        fail: `${unlabelled.length} of ${fields.length} form fields have no label${example(unlabelled)}`,
      },
      { fields: fields.length, unlabelled: unlabelled.slice(0, 10).map(describe) },
    );
  },
});
