import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { defineCheck, graded, notApplicable } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { collapse, hasAncestorOrSelf, isHiddenByMarkup } from '../content/lib/page.ts';

const FIELDS =
  'input:not([type="hidden" i]):not([type="submit" i]):not([type="button" i]):not([type="image" i]):not([type="reset" i]), select, textarea';

function labelled($: CheerioAPI, field: Element): boolean {
  const a = field.attribs;
  if (a['aria-label']?.trim() || a['aria-labelledby']?.trim() || a.title?.trim()) return true;
  if (a.id && $(`label[for="${a.id.replace(/"/g, '\\"')}"]`).length > 0) return true;
  return hasAncestorOrSelf(field, (a) => a.name === 'label');
}

function submitText($: CheerioAPI, form: Element): string {
  const btn = $(form)
    .find(
      'button:not([type="button" i]):not([type="reset" i]), input[type="submit" i], input[type="image" i]',
    )
    .first();
  if (btn.length === 0) return '';
  const el = btn.get(0) as Element;
  return collapse(
    el.name === 'input'
      ? (el.attribs.value ?? el.attribs.alt ?? '')
      : btn.text() || (el.attribs['aria-label'] ?? ''),
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
      const fields = $(form).find(FIELDS).get();
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
