import { defineCheck, fail, notApplicable } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import {
  bodyText,
  collapse,
  hasAncestorOrSelf,
  hasDescendant,
  headings,
  textOf,
  wordCount,
} from '../content/lib/page.ts';
import { violations } from './lib/score.ts';

// WCAG 1.3.1 and 2.4.6 (axe heading-order, empty-heading): screen-reader users jump between
// headings to skim a page, so headings must exist, carry text and not skip levels. Text merely
// styled to look like a heading (class "headline" and the like, or a big <font>; WCAG failure F2)
// is invisible to that navigation.

const LOOKS_LIKE_HEADING = /(^|[\s_-])(sub)?(headline|heading|title)s?($|[\s_-])/i;
// <font size="5"> and up (or "+2" and up) renders as large as an <h3>-<h1>.
const BIG_FONT = /^\s*([5-7]|\+[2-4])\s*$/;
const STYLED_TAGS = 'p, div, span, font, b, strong, td';
// Styled text inside a heading or a control (or a [role="heading"]) is no stand-in for a heading,
// and neither is a block around headings or paragraphs.
const NOT_INSIDE = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'a', 'button', 'label', 'nav']);
const NOT_AROUND = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div']);

export default defineCheck({
  meta: {
    id: 'a11y-headings',
    title: 'Headings are marked up in order',
    failureTitle: 'Headings are missing or out of order',
    description:
      'Mark up section titles as <h1>-<h6>, in order without skipping levels, so screen-reader users can navigate by heading.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const list = headings($);
    const skips: string[] = [];
    list.forEach((h, i) => {
      const prev = list[i - 1];
      if (prev && h.level > prev.level + 1)
        skips.push(`h${prev.level} -> h${h.level} ("${h.text.slice(0, 40)}")`);
    });
    const empty = list.filter((h) => !h.text);
    const fake = $(STYLED_TAGS)
      .toArray()
      .filter((el) => {
        if (
          !LOOKS_LIKE_HEADING.test(el.attribs.class ?? '') &&
          !BIG_FONT.test(el.name === 'font' ? (el.attribs.size ?? '') : '')
        ) {
          return false;
        }
        if (hasAncestorOrSelf(el, (a) => NOT_INSIDE.has(a.name) || a.attribs.role === 'heading'))
          return false;
        if (hasDescendant(el, (d) => NOT_AROUND.has(d.name))) return false;
        const text = collapse(textOf(el));
        return text.length >= 3 && text.length <= 100;
      })
      .map((el) => collapse(textOf(el)));
    const evidence = {
      headings: list.map((h) => `h${h.level} ${h.text.slice(0, 60)}`),
      skips,
      empty: empty.length,
      styledAsHeading: fake,
    };
    if (list.length === 0 && fake.length === 0) {
      if (wordCount(bodyText($)) < 50) return notApplicable('Page has too little text to need headings');
      return fail('Page has no headings', evidence);
    }
    const problems = [
      skips.length ? `${skips.length} skipped heading level${skips.length > 1 ? 's' : ''} (${skips[0]})` : '',
      empty.length ? `${empty.length} empty heading${empty.length > 1 ? 's' : ''}` : '',
      fake.length
        ? `${fake.length} heading${fake.length > 1 ? 's' : ''} only styled as such ("${fake[0]}")`
        : '',
    ].filter(Boolean);
    return violations(
      skips.length + empty.length + fake.length,
      list.length + fake.length,
      {
        none: 'Page has no headings',
        pass: `${list.length} headings, in order`,
        fail: `Headings are not navigable: ${problems.join('; ')}`,
      },
      evidence,
    );
  },
});
