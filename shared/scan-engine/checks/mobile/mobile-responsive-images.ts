import { defineCheck, graded, notApplicable, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { describe } from '../accessibility/lib/names.ts';
import { plural, resolveUrl } from '../content/lib/page.ts';

// Phones should not download desktop-sized images. An image is "large" when its width attribute
// is at least 400 px or (with Resources) it weighs 50 KiB or more; such images should offer
// smaller versions with srcset/sizes or <picture>. Smaller images gain little from it.
const LARGE_WIDTH = 400;
const LARGE_BYTES = 50 * 1024;

export default defineCheck({
  meta: {
    id: 'mobile-responsive-images',
    title: 'Large images offer phone-sized versions',
    failureTitle: 'Large images have no srcset',
    description:
      'Give large images a srcset with several widths (and sizes), or use <picture>, so phones download a version that fits their screen.',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['Resources'],
  },
  run({ Page, Resources }) {
    const $ = loadDocument(Page.html);
    const bytesByUrl = new Map((Resources?.entries ?? []).map((e) => [e.url, e.bytes]));
    const large = $('img[src]')
      .toArray()
      .filter((img) => {
        const src = img.attribs.src ?? '';
        if (src.startsWith('data:') || /\.svg(\?|$)/i.test(src)) return false;
        const width = Number.parseInt(img.attribs.width ?? '', 10);
        const bytes = bytesByUrl.get(resolveUrl(src, Page.finalUrl)?.href ?? '');
        return width >= LARGE_WIDTH || (bytes ?? 0) >= LARGE_BYTES;
      });
    if (large.length === 0) return notApplicable('Page has no large images');
    const fixed = large.filter(
      (img) => !img.attribs.srcset && $(img).closest('picture').find('source[srcset]').length === 0,
    );
    const evidence = { large: large.length, withoutSrcset: fixed.slice(0, 10).map(describe) };
    if (fixed.length === 0)
      return pass(
        `Every large image offers responsive versions (${plural(large.length, 'image')})`,
        evidence,
      );
    // Any large image without a smaller version is a finding, however many others have one.
    const score = Math.min(0.85, 1 - fixed.length / large.length);
    return graded(
      score,
      `${fixed.length} of ${large.length} large images have no srcset, so phones download the full size`,
      evidence,
    );
  },
});
