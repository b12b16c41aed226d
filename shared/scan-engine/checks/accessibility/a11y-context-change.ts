import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { describe } from './lib/names.ts';

// WCAG 3.2.2 and 2.2.1 (failure F37, axe meta-refresh): choosing an option must not navigate by
// itself (keyboard users pass every option on the way), and a page must not reload or redirect
// on a timer.

const NAVIGATES = /location|\.submit\s*\(|window\.open/i;

export default defineCheck({
  meta: {
    id: 'a11y-context-change',
    title: 'No unexpected changes of context',
    failureTitle: 'Page changes context without warning',
    description:
      'Let users confirm a choice with a button instead of navigating on change, and do not use <meta http-equiv="refresh"> with a delay.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const onChange = $('select, input, textarea')
      .toArray()
      .filter((el) => NAVIGATES.test(el.attribs.onchange ?? ''));
    const refresh = $('meta[http-equiv="refresh" i]')
      .toArray()
      .filter((m) => Number.parseFloat(m.attribs.content ?? '') > 0);
    const problems = [
      onChange[0] ? `${describe(onChange[0])} navigates as soon as its value changes` : '',
      refresh[0]
        ? `<meta http-equiv="refresh" content="${refresh[0].attribs.content}"> reloads or redirects on a timer`
        : '',
    ].filter(Boolean);
    const evidence = { onChange: onChange.map(describe), refresh: refresh.length };
    if (problems.length)
      return fail(`Page changes context without warning: ${problems.join('; ')}`, evidence);
    return pass('No control or timer changes the page unexpectedly', evidence);
  },
});
