import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { viewportMeta } from '../content/lib/page.ts';

// After Lighthouse's viewport audit: without <meta name="viewport" content="width=device-width">
// phones lay the page out 980 px wide and shrink it, so text is tiny and everything needs zooming.

export default defineCheck({
  meta: {
    id: 'mobile-viewport',
    title: 'Page has a mobile viewport',
    failureTitle: 'Page has no viewport meta tag',
    description:
      'Add <meta name="viewport" content="width=device-width, initial-scale=1"> so phones lay the page out at their own width.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const viewport = viewportMeta(loadDocument(Page.html));
    if (!viewport) return fail('Page has no viewport meta tag, so phones show a shrunken desktop layout');
    const { content, directives } = viewport;
    const width = directives.get('width');
    if (width === 'device-width') return pass('Page has a mobile viewport (width=device-width)', { content });
    if (width && /^\d+$/.test(width))
      return fail(`Viewport has a fixed width of ${width} px instead of device-width`, { content });
    if (directives.has('initial-scale'))
      return warn('Viewport sets initial-scale but not width=device-width', 0.8, { content });
    return fail(`Viewport meta tag sets neither width nor initial-scale ("${content}")`, { content });
  },
});
