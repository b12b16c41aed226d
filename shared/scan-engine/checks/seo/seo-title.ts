import type { Element } from 'domhandler';
import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { collapse, hasAncestorOrSelf } from '../content/lib/page.ts';

// $(el).closest('svg') without compiling the selector for each title.
const inSvg = (el: Element) => el.name === 'svg';

// Search results show about 50-60 characters of a title (Google truncates by pixel width, ~600px);
// under 10 characters rarely describes a page.
const MIN = 10;
const MAX = 60;

export default defineCheck({
  meta: {
    id: 'seo-title',
    title: 'Page has a descriptive <title>',
    failureTitle: 'Page has no <title>',
    description:
      'The title is the headline of the page in search results and browser tabs. Give every page a unique, descriptive title of about 10-60 characters.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    // <title> inside inline SVG names the graphic, not the page.
    const titles = $('title').filter((_, el) => !hasAncestorOrSelf(el, inSvg));
    if (titles.length === 0) return fail('Page has no <title>');
    const text = collapse(titles.first().text());
    if (!text) return fail('Page has no <title>: the <title> element is empty');
    const count = titles.length;
    const evidence = { title: text, length: text.length, count };
    if (count > 1)
      return warn(
        `Page has ${count} <title> elements; browsers and search engines use only the first`,
        0.7,
        evidence,
      );
    if (text.length < MIN)
      return warn(`Title "${text}" is very short (${text.length} characters)`, 0.6, evidence);
    if (text.length > MAX) {
      return warn(
        `Title is ${text.length} characters long; search results cut it off after about ${MAX}`,
        0.8,
        evidence,
      );
    }
    return pass(`Page has a descriptive title: "${text}"`, evidence);
  },
});
