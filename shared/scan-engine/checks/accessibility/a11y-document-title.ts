import type { Element } from 'domhandler';
import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { collapse, hasAncestorOrSelf } from '../content/lib/page.ts';

// $(el).closest('svg') without compiling the selector for each title.
const inSvg = (el: Element) => el.name === 'svg';

// WCAG 2.4.2 (axe document-title): the title is the first thing announced on a new page and
// identifies the tab.

export default defineCheck({
  meta: {
    id: 'a11y-document-title',
    title: 'Page has a title',
    failureTitle: 'Page has no <title>',
    description:
      'The title is announced when the page opens and names the browser tab. Give every page a descriptive <title>.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const title = $('title')
      .filter((_, el) => !hasAncestorOrSelf(el, inSvg))
      .first();
    if (title.length === 0) return fail('Page has no <title>');
    const text = collapse(title.text());
    if (!text) return fail('Page has no <title>: the <title> element is empty');
    return pass(`Page has a title: "${text}"`);
  },
});
