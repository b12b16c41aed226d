import { defineCheck, graded, notApplicable } from '../../check.ts';
import { plural } from '../content/lib/page.ts';

// Full mode: links and buttons smaller than a fingertip (WCAG 2.5.8 asks for 24x24 CSS px;
// the render decides what "too small" is). Scored as the share of targets that are big enough,
// as Lighthouse's former tap-targets audit did.

export default defineCheck({
  meta: {
    id: 'mobile-tap-targets',
    title: 'Tap targets are large enough',
    failureTitle: 'Tap targets are too small',
    description: 'Make links and buttons at least 24x24 px (48x48 is comfortable) with space between them.',
    requiredArtifacts: ['Rendered'],
  },
  run({ Rendered }) {
    const { total, tooSmall, examples } = Rendered.mobile.tapTargets;
    if (total === 0) return notApplicable('Page has no tap targets');
    const evidence = { total, tooSmall, examples: examples.slice(0, 5) };
    const score = 1 - tooSmall / total;
    if (score >= 0.9)
      return graded(
        score,
        `Tap targets are large enough (${total - tooSmall} of ${plural(total, 'target')})`,
        evidence,
      );
    return graded(
      score,
      `${tooSmall} of ${total} tap targets are too small to hit reliably${examples[0] ? `, e.g. ${examples[0]}` : ''}`,
      evidence,
    );
  },
});
