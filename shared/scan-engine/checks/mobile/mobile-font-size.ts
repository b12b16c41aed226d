import { defineCheck, graded, notApplicable } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { inlineCss } from '../content/lib/page.ts';

// Lighthouse's font-size audit counts text under 12 px as illegible on phones. Markup shows the
// font sizes set in inline CSS (px, or pt at 0.75 px) and <font size="1"> (about 10 px); the share
// of those that are small estimates how much text is too small before a browser render confirms it.
const MIN_PX = 12;
const SIZE = /font(?:-size)?\s*:[^;{}]*?(\d+(?:\.\d+)?)(px|pt)\b/gi;

function sizesPx(css: string): number[] {
  return [...css.matchAll(SIZE)].map((m) => Number(m[1]) * (m[2]?.toLowerCase() === 'pt' ? 4 / 3 : 1));
}

export default defineCheck({
  meta: {
    id: 'mobile-font-size',
    title: 'Text is large enough to read on a phone',
    failureTitle: 'Text is too small to read on a phone',
    description: 'Use a base font size of at least 16 px and nothing under 12 px; let users zoom.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const css = inlineCss($);
    const sizes = [...css.blocks.flatMap(sizesPx), ...css.attributes.flatMap((a) => sizesPx(a.css))];
    const fontTags = $('font[size]')
      .toArray()
      .map((el) => (el.attribs.size ?? '').trim());
    // <font size> 1 renders at 10 px (x-small) and "-2"/"-1" relative sizes below the 16 px default too.
    const smallFontTags = fontTags.filter((s) => s === '1' || /^-[1-9]/.test(s)).length;
    const total = sizes.length + fontTags.length;
    if (total === 0) return notApplicable('No font sizes are set in inline CSS');
    const small = sizes.filter((px) => px < MIN_PX).length + smallFontTags;
    const evidence = { declarations: total, small, smallest: sizes.length ? Math.min(...sizes) : null };
    const score = 1 - small / total;
    if (score >= 0.9) {
      return graded(
        score,
        `Inline font sizes are ${small ? 'nearly ' : ''}all ${MIN_PX} px or larger (${small} of ${total} smaller)`,
        evidence,
      );
    }
    return graded(
      score,
      `${small} of ${total} font sizes set in the markup are under ${MIN_PX} px`,
      evidence,
    );
  },
});
