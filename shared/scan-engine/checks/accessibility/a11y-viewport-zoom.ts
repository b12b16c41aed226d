import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { viewportMeta } from '../content/lib/page.ts';

// WCAG 1.4.4 (axe meta-viewport; Lighthouse weight 10): user-scalable=no or a maximum-scale
// under 2 stops people with low vision from zooming on phones.

export default defineCheck({
  meta: {
    id: 'a11y-viewport-zoom',
    title: 'Users can zoom the page',
    failureTitle: 'Zooming is disabled',
    description:
      'Remove user-scalable=no and any maximum-scale below 5 from the viewport meta tag so users can zoom.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const viewport = viewportMeta(loadDocument(Page.html));
    if (!viewport) return pass('Zoom is not restricted (no viewport meta tag)');
    const { content, directives } = viewport;
    const scalable = directives.get('user-scalable');
    const max = Number.parseFloat(directives.get('maximum-scale') ?? '');
    if (scalable === 'no' || scalable === '0')
      return fail('Zooming is disabled: viewport has user-scalable=no', { content });
    if (Number.isFinite(max) && max < 2)
      return fail(`Zooming is limited: viewport has maximum-scale=${max}`, { content });
    return pass('Users can zoom the page', { content });
  },
});
