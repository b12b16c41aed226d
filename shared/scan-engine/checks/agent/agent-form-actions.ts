import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { defineCheck, graded, notApplicable } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { collapse, descendants, hasAncestorOrSelf, isHiddenByMarkup } from '../content/lib/page.ts';

// Fields and submit buttons found by element walks: $(form).find(selector) parsed and compiled
// these selectors (with their :not()s) again for every form. The tests are the selectors':
//   input:not([type="hidden" i]):not([type="submit" i]):not([type="button" i]):not([type="image" i]):not([type="reset" i]), select, textarea
//   button:not([type="button" i]):not([type="reset" i]), input[type="submit" i], input[type="image" i]
/** [type="x" i] for any x of `types` (lower case never shortens a string: the lengths agree). */
const typeIs = (el: Element, types: ReadonlySet<string>) => {
  const t = el.attribs.type;
  return t !== undefined && types.has(t.toLowerCase());
};
const NOT_FIELD = new Set(['hidden', 'submit', 'button', 'image', 'reset']);
const isField = (el: Element) =>
  el.name === 'input' ? !typeIs(el, NOT_FIELD) : el.name === 'select' || el.name === 'textarea';
const NOT_SUBMIT = new Set(['button', 'reset']);
const SUBMIT_INPUT = new Set(['submit', 'image']);
const isSubmit = (el: Element) =>
  el.name === 'button' ? !typeIs(el, NOT_SUBMIT) : el.name === 'input' && typeIs(el, SUBMIT_INPUT);

function labelled($: CheerioAPI, field: Element): boolean {
  const a = field.attribs;
  if (a['aria-label']?.trim() || a['aria-labelledby']?.trim() || a.title?.trim()) return true;
  if (a.id && $(`label[for="${a.id.replace(/"/g, '\\"')}"]`).length > 0) return true;
  return hasAncestorOrSelf(field, (a) => a.name === 'label');
}

function submitText($: CheerioAPI, form: Element): string {
  const el = descendants(form, isSubmit)[0];
  if (!el) return '';
  return collapse(
    el.name === 'input'
      ? (el.attribs.value ?? el.attribs.alt ?? '')
      : $(el).text() || (el.attribs['aria-label'] ?? ''),
  );
}

export default defineCheck({
  meta: {
    id: 'agent-form-actions',
    title: 'Forms have clear actions and labelled fields',
    failureTitle: 'Forms are hard for agents to complete',
    description:
      'An agent fills a form by reading its labels, its submit button and where it posts. Give every form an action, a submit button that says what it does, and a label for every field.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const forms = $('form')
      .get()
      .filter((f) => !isHiddenByMarkup(f));
    if (forms.length === 0) return notApplicable('Page has no forms');
    const per = forms.map((form) => {
      const action = (form.attribs.action ?? '').trim();
      const hasAction = action !== '' && !action.toLowerCase().startsWith('javascript:');
      const submit = submitText($, form);
      const fields = descendants(form, isField);
      const labelShare =
        fields.length === 0 ? 1 : fields.filter((f) => labelled($, f)).length / fields.length;
      const score = (hasAction ? 0.35 : 0) + (submit ? 0.3 : 0) + 0.35 * labelShare;
      return {
        action: hasAction ? action : null,
        submit: submit || null,
        fields: fields.length,
        labelShare,
        score,
      };
    });
    const score = per.reduce((s, f) => s + f.score, 0) / per.length;
    const gaps = [
      per.some((f) => !f.action) && 'a form without an action URL',
      per.some((f) => !f.submit) && 'a form without a labelled submit button',
      per.some((f) => f.labelShare < 1) && 'unlabelled fields',
    ].filter(Boolean);
    const msg =
      gaps.length === 0
        ? `${forms.length} form(s) with actions, submit buttons and labelled fields`
        : `Form issues: ${gaps.join(', ')}`;
    return graded(score, msg, { forms: per.slice(0, 5) });
  },
});
