import { defineCheck, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { inlineCss } from '../content/lib/page.ts';

// WCAG 1.4.1 (failure F73; axe link-in-text-block): a link inside text that differs only by colour
// is invisible to many colour-blind users. Markup alone cannot measure contrast, so removing the
// underline from content links in inline CSS is a warning; full mode's axe run decides.

const NO_UNDERLINE = /text-decoration(-line)?\s*:\s*none/i;
// Navigation, buttons and logos are recognisable without an underline.
const EXEMPT = /nav|menu|btn|button|logo|brand|header|footer|skip|tab/i;

function ruleTargetsLinks(selector: string): boolean {
  return selector.split(',').some((s) => {
    const last =
      s
        .trim()
        .split(/[\s>+~]+/)
        .pop() ?? '';
    return /^(a|\*)([:.[#]|$)/i.test(last) && !EXEMPT.test(s);
  });
}

export default defineCheck({
  meta: {
    id: 'a11y-link-underline',
    title: 'Links are not distinguished by colour alone',
    failureTitle: 'Links rely on colour alone',
    description:
      'Keep links in running text underlined (or otherwise marked beyond colour) so people who cannot tell the colours apart can find them.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const css = inlineCss($);
    const rules = css.blocks.flatMap((block) =>
      [...block.matchAll(/([^{}]+)\{([^{}]*)\}/g)]
        .filter((m) => NO_UNDERLINE.test(m[2] ?? '') && ruleTargetsLinks(m[1] ?? ''))
        .map((m) => (m[1] ?? '').trim()),
    );
    const styled = css.attributes.filter(
      (a) => a.el.name === 'a' && NO_UNDERLINE.test(a.css) && !EXEMPT.test(a.el.attribs.class ?? ''),
    );
    const evidence = { rules, styledLinks: styled.length };
    if (rules.length === 0 && styled.length === 0) return pass('Inline CSS keeps link underlines', evidence);
    const where = rules.length
      ? `CSS rule "${rules[0]}"`
      : `style attributes on ${styled.length} link${styled.length > 1 ? 's' : ''}`;
    return warn(`Links may rely on colour alone: ${where} removes their underline`, 0.4, evidence);
  },
});
