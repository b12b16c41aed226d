import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { defineCheck, notApplicable, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { accessibleName, nativeLabel } from '../accessibility/lib/names.ts';
import {
  collapse,
  descendants,
  hasAncestorOrSelf,
  isHiddenByMarkup,
  listText,
  plural,
} from '../content/lib/page.ts';

// Form usability after Baymard's and NN/g's form guidelines: few fields (every extra field costs
// completions; up to 5 is lean), a visible label per field (a placeholder vanishes as you type;
// tolerable only on a one-field form), input types that bring up the right phone keyboard, and
// a submit button. Search boxes and jump menus are not conversion forms and are left out.
const NOT_FIELDS = new Set(['hidden', 'submit', 'reset', 'button', 'image']);
const LEAN = 5;
const KINDS: [RegExp, string][] = [
  [/e-?mail/i, 'email'],
  [/phone|tel(ephone)?\b|mobile/i, 'tel'],
];

interface FormReport {
  kind: string;
  fields: number;
  submit: string | null;
  problems: string[];
  score: number;
}

const FIELD_TAGS = new Set(['input', 'select', 'textarea']);
/** button, input[type="submit" i], input[type="image" i] */
function isSubmitLike(el: Element): boolean {
  if (el.name === 'button') return true;
  const type = el.attribs.type?.toLowerCase();
  return el.name === 'input' && (type === 'submit' || type === 'image');
}

function fieldsOf(form: Element): Element[] {
  return descendants(form, (d) => FIELD_TAGS.has(d.name)).filter(
    (el) => !isHiddenByMarkup(el) && !NOT_FIELDS.has((el.attribs.type ?? 'text').toLowerCase()),
  );
}

function isSearch(form: Element, fields: Element[]): boolean {
  if (
    (form.attribs.role ?? '').toLowerCase() === 'search' ||
    hasAncestorOrSelf(form, (a) => a.attribs.role === 'search')
  )
    return true;
  return (
    fields.length === 1 &&
    /^(q|s|query|search|keywords?)$|search/i.test(
      `${fields[0]?.attribs.name ?? ''} ${fields[0]?.attribs.type ?? ''}`,
    )
  );
}

function kindOf(fields: Element[]): string {
  const types = fields.map((f) => (f.attribs.type ?? f.name).toLowerCase());
  const hints = fields
    .map(
      (f) =>
        `${f.attribs.name ?? ''} ${f.attribs.id ?? ''} ${f.attribs.placeholder ?? ''} ${f.attribs.autocomplete ?? ''}`,
    )
    .join(' ');
  if (/card|cc-number|cvc|cvv/i.test(hints)) return 'checkout';
  if (types.includes('password')) return 'account';
  if (fields.some((f) => f.name === 'textarea')) return 'contact';
  if (fields.length <= 2 && (types.includes('email') || /e-?mail/i.test(hints))) return 'signup';
  return 'enquiry';
}

function judge(form: Element, fields: Element[], $: CheerioAPI): FormReport {
  const problems: string[] = [];
  let score = 1;
  const submitEl = descendants(form, isSubmitLike).find(
    (b) => b.name !== 'button' || ['submit', ''].includes((b.attribs.type ?? '').toLowerCase()),
  );
  const submit = submitEl ? accessibleName($, submitEl).name || 'Submit' : null;
  if (!submit) {
    problems.push('no submit button');
    score -= 0.4;
  }
  const labels = fields.map((f) =>
    nativeLabel($, f) || f.attribs['aria-labelledby'] ? 'visible' : accessibleName($, f).source,
  );
  const unlabelled = labels.filter((l) => l === 'none').length;
  const placeholderOnly = labels.filter((l) => l === 'placeholder').length;
  if (unlabelled) {
    problems.push(`${unlabelled} field${unlabelled > 1 ? 's' : ''} without any label`);
    score -= 0.3 * (unlabelled / fields.length);
  }
  if (placeholderOnly && fields.length > 1) {
    problems.push(`${placeholderOnly} field${placeholderOnly > 1 ? 's' : ''} labelled only by a placeholder`);
    score -= 0.2 * (placeholderOnly / fields.length);
  }
  for (const f of fields) {
    if (f.name !== 'input' || !['', 'text'].includes((f.attribs.type ?? '').toLowerCase())) continue;
    const hint = `${f.attribs.name ?? ''} ${f.attribs.id ?? ''} ${f.attribs.placeholder ?? ''} ${collapse(nativeLabel($, f))}`;
    const want = KINDS.find(([re]) => re.test(hint))?.[1];
    if (want) {
      problems.push(`a ${want} field uses type="text" (use type="${want}")`);
      score -= 0.1;
    }
  }
  if (fields.length > LEAN) {
    problems.push(`${fields.length} fields (keep it to ${LEAN} or fewer)`);
    score -= Math.min(0.3, 0.05 * (fields.length - LEAN));
  }
  return { kind: kindOf(fields), fields: fields.length, submit, problems, score: Math.max(0, score) };
}

/** Subject and verb for a message: "The signup form is", "2 signup forms are", "A contact form and a signup form are". */
function formsPhrase(reports: FormReport[]): string {
  const counts = new Map<string, number>();
  for (const r of reports) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, n]) =>
    n > 1 ? `${n} ${kind} forms` : `${reports.length === 1 ? 'the' : 'a'} ${kind} form`,
  );
  const phrase = listText(parts);
  return `${phrase[0]?.toUpperCase()}${phrase.slice(1)} ${reports.length === 1 ? 'is' : 'are'}`;
}

export default defineCheck({
  meta: {
    id: 'conversion-forms',
    title: 'Forms are quick to complete',
    failureTitle: 'Forms are hard to complete',
    description:
      'Ask only for what you need, label every field visibly, use email/tel input types and end with a clear submit button.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const reports = $('form')
      .toArray()
      .map((form) => ({ form, fields: fieldsOf(form) }))
      .filter(({ form, fields }) => {
        if (fields.length === 0 || isSearch(form, fields)) return false;
        // A lone <select> is a jump menu, not a form to fill in.
        return !(fields.length === 1 && fields[0]?.name === 'select');
      })
      .map(({ form, fields }) => judge(form, fields, $));
    if (reports.length === 0) return notApplicable('Page has no sign-up, contact or checkout form');
    const score = reports.reduce((s, r) => s + r.score, 0) / reports.length;
    const evidence = { forms: reports };
    const problems = [...new Set(reports.flatMap((r) => r.problems))];
    if (problems.length === 0) {
      const fields = reports.map((r) => r.fields);
      const min = Math.min(...fields);
      const max = Math.max(...fields);
      const shape =
        reports.length === 1
          ? `${plural(min, 'field')} and a "${reports[0]?.submit}" button`
          : `${min === max ? plural(min, 'field') : `${min}-${max} fields`} each, with a submit button`;
      return pass(`${formsPhrase(reports)} quick to complete: ${shape}`, evidence);
    }
    // A known problem keeps the result out of the passes, however small its cost.
    const message = `${formsPhrase(reports)} harder to complete than needed: ${listText(problems, 4)}`;
    return { outcome: score >= 0.5 ? 'warn' : 'fail', score, message, evidence };
  },
});
