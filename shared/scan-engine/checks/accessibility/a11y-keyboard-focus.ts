import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { inlineCss } from '../content/lib/page.ts';
import { describe } from './lib/names.ts';
import { violations } from './lib/score.ts';

// WCAG 2.1.1 and 2.4.7, as far as markup shows them: focus thrown away on arrival
// (onfocus="blur()", failure F55), mouse-only click handlers on elements a keyboard cannot reach
// (F54, F42), and CSS that hides the focus outline without a :focus-visible replacement (F78).

const INTERACTIVE =
  'a[href], button, input, select, textarea, summary, [tabindex], [role="button"], [role="link"], [contenteditable]';

/** Selectors of inline rules that set outline:none/0 on :focus (not the :focus-visible pattern). */
function outlineRemovals(css: string): string[] {
  const out: string[] = [];
  for (const m of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const selector = (m[1] ?? '').trim();
    if (!/outline\s*:\s*(none|0)\b/i.test(m[2] ?? '')) continue;
    if (/:focus(?!-visible|-within)/.test(selector) && !/:not\(\s*:focus-visible\s*\)/.test(selector))
      out.push(selector);
  }
  return out;
}

export default defineCheck({
  meta: {
    id: 'a11y-keyboard-focus',
    title: 'Keyboard users can reach and see focus',
    failureTitle: 'Keyboard focus is removed or unreachable',
    description:
      'Keyboard users must be able to reach every control and see where focus is. Do not blur() on focus, use real buttons and links for click handlers, and keep a visible focus style.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const interactive = $(INTERACTIVE).toArray();
    const blurred = $('[onfocus]')
      .toArray()
      .filter((el) => /\bblur\s*\(/.test(el.attribs.onfocus ?? ''));
    const mouseOnly = $('[onclick]')
      .toArray()
      .filter((el) => !$(el).is(INTERACTIVE) && !['body', 'html', 'label', 'option'].includes(el.name));
    const outlines = inlineCss($).blocks.flatMap(outlineRemovals);
    const problems = [
      blurred.length
        ? `${blurred.length} element${blurred.length > 1 ? 's' : ''} drop focus on arrival (onfocus="blur()")`
        : '',
      mouseOnly.length
        ? `${mouseOnly.length} click handler${mouseOnly.length > 1 ? 's' : ''} on elements a keyboard cannot reach (${describe(mouseOnly[0]!)})`
        : '',
      outlines.length ? `CSS hides the focus outline (${outlines[0]})` : '',
    ].filter(Boolean);
    return violations(
      blurred.length + mouseOnly.length + outlines.length,
      interactive.length + mouseOnly.length + outlines.length,
      {
        none: 'Page has no interactive elements',
        pass: 'Focus stays visible and every click handler is keyboard-reachable',
        fail: `Keyboard access is broken: ${problems.join('; ')}`,
      },
      {
        blurred: blurred.slice(0, 10).map(describe),
        mouseOnly: mouseOnly.slice(0, 10).map(describe),
        outlineRules: outlines,
      },
    );
  },
});
