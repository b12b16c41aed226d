import { defineCheck, graded, notApplicable, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { describe } from '../accessibility/lib/names.ts';
import { inlineCss } from '../content/lib/page.ts';

// A box fixed wider than a phone (375 CSS px is the common small-phone width Lighthouse and our
// render use) makes the whole page scroll sideways. Markup shows width attributes, style
// attributes and <style> rules outside @media queries; images and video are left out because
// stylesheets usually cap them with max-width. One such box already breaks the layout.
// Not counted: rules for ::before/::after (decorative blobs, usually clipped by an overflow:hidden
// container) and widths capped by a max-width of at most a phone or in % / vw. In full mode the
// render is the ground truth: only boxes that really widen the layout viewport at 375 px count
// (the document's scroll width, and the widening boxes the render names).
const PHONE_WIDTH = 375;
const FIXED_WIDTH = /(?:^|[;{\s])(?:min-)?width\s*:\s*(\d+(?:\.\d+)?)px/gi;
const MEDIA_SCALED = new Set(['img', 'video', 'picture', 'svg', 'canvas']);

function wideDeclarations(css: string): number[] {
  // A max-width that fits a phone keeps the box narrow whatever its width says.
  const max = /(?:^|[;{\s])max-width\s*:\s*(\d+(?:\.\d+)?)(px|%|vw)/i.exec(css);
  if (max && (max[2] !== 'px' || Number(max[1]) <= PHONE_WIDTH)) return [];
  return [...css.matchAll(FIXED_WIDTH)].map((m) => Number(m[1])).filter((w) => w > PHONE_WIDTH);
}

const PSEUDO_ELEMENT = /::?(?:before|after|backdrop|marker|placeholder)\b/i;

/** Wide widths in a stylesheet's rules, rule by rule; rules that only style pseudo-elements are left out. */
function wideRuleWidths(css: string): number[] {
  const out: number[] = [];
  for (const m of css.matchAll(/([^{}]*)\{([^{}]*)\}/g)) {
    const selectors = (m[1] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (selectors.length > 0 && selectors.every((s) => PSEUDO_ELEMENT.test(s))) continue;
    out.push(...wideDeclarations(m[2] ?? ''));
  }
  return out;
}

/** Top-level CSS with @media blocks removed (their rules are already conditional). */
function outsideMedia(css: string): string {
  let out = '';
  let depth = 0;
  let inMedia = false;
  for (let i = 0; i < css.length; i++) {
    if (!inMedia && depth === 0 && css.startsWith('@media', i)) inMedia = true;
    const ch = css[i];
    if (ch === '{') depth++;
    if (!inMedia) out += ch;
    if (ch === '}' && --depth === 0) inMedia = false;
  }
  return out;
}

export default defineCheck({
  meta: {
    id: 'mobile-fixed-widths',
    title: 'Layout has no fixed widths wider than a phone',
    failureTitle: 'Fixed widths are wider than a phone screen',
    description:
      'Elements with a fixed width above ~375 px overflow phone screens. Use percentages, max-width and flexible layouts (flexbox, grid) instead.',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['Rendered'],
  },
  run({ Page, Rendered }) {
    const $ = loadDocument(Page.html);
    const attrs = $('[width]')
      .toArray()
      .filter(
        (el) =>
          !MEDIA_SCALED.has(el.name) &&
          el.name !== 'iframe' &&
          /^\s*\d+(\.\d+)?(px)?\s*$/i.test(el.attribs.width ?? ''),
      )
      .filter((el) => Number.parseFloat(el.attribs.width ?? '0') > PHONE_WIDTH);
    const css = inlineCss($);
    const styled = css.attributes.filter(
      (a) => !MEDIA_SCALED.has(a.el.name) && wideDeclarations(a.css).length > 0,
    );
    const rules = css.blocks.flatMap((b) => wideRuleWidths(outsideMedia(b)));
    const count = attrs.length + styled.length + rules.length;
    const widest = Math.max(
      0,
      ...attrs.map((el) => Number.parseFloat(el.attribs.width ?? '0')),
      ...styled.flatMap((a) => wideDeclarations(a.css)),
      ...rules,
    );
    const evidence = {
      widthAttributes: attrs.slice(0, 10).map(describe),
      styleAttributes: styled.length,
      cssRules: rules.length,
      widest,
    };
    if ($('body').children().length === 0) return notApplicable('Page has no content');
    if (Rendered) {
      // Ground truth: does anything widen the 375 px layout viewport?
      const { width, scrollWidth, widening } = Rendered.mobile;
      const rendered = { ...evidence, width, scrollWidth, widening: widening ?? null };
      if (scrollWidth - width <= 2)
        return pass(
          `No box widens the page at ${width} px${count ? ` (${count} fixed width${count > 1 ? 's' : ''} in the markup, all contained)` : ''}`,
          rendered,
        );
      const boxes = widening?.length ? `: ${widening.join(', ')}` : '';
      return graded(
        0.6 * 0.85 ** Math.max(0, (widening?.length ?? 1) - 1),
        `The page is ${scrollWidth} px wide at ${width} px${boxes}`,
        rendered,
      );
    }
    if (count === 0) return pass(`No fixed widths above ${PHONE_WIDTH} px in the markup`, evidence);
    return graded(
      0.6 * 0.85 ** (count - 1),
      `${count} element${count > 1 ? 's have' : ' has'} a fixed width wider than a phone (up to ${widest} px)`,
      evidence,
    );
  },
});
