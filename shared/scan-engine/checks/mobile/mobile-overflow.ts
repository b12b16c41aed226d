import { defineCheck, fail, pass, warn } from '../../check.ts';

// Full mode: the page rendered 375 px wide. Content wider than the viewport means sideways
// scrolling on phones (Lighthouse's former content-width audit failed on any overflow; a few
// pixels are tolerated for sub-pixel rounding).

export default defineCheck({
  meta: {
    id: 'mobile-overflow',
    title: 'Content fits a phone screen',
    failureTitle: 'Content is wider than a phone screen',
    description:
      'On a 375 px wide screen nothing should scroll sideways. Find the element that overflows and make it flexible (max-width: 100%, wrapping, responsive tables).',
    requiredArtifacts: ['Rendered'],
  },
  run({ Rendered }) {
    const { width, scrollWidth } = Rendered.mobile;
    const overflow = scrollWidth - width;
    const evidence = { width, scrollWidth };
    if (overflow <= 2) return pass(`Content fits a ${width} px wide phone screen`, evidence);
    if (overflow <= width * 0.05)
      return warn(`Content overflows a ${width} px screen by ${overflow} px`, 0.6, evidence);
    return fail(
      `Content is ${scrollWidth} px wide on a ${width} px phone screen, so the page scrolls sideways`,
      evidence,
    );
  },
});
