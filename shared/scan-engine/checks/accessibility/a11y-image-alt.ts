import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { isHiddenByMarkup, plural } from '../content/lib/page.ts';
import { accessibleName, describe, example } from './lib/names.ts';
import { violations } from './lib/score.ts';

// WCAG 1.1.1 (axe image-alt, input-image-alt, area-alt): every image needs a text alternative;
// alt="" or role="presentation" marks an image as decorative, which is a valid choice.

export default defineCheck({
  meta: {
    id: 'a11y-image-alt',
    title: 'Images have text alternatives',
    failureTitle: 'Images are missing alt text',
    description:
      'Screen readers read the alt attribute in place of an image. Describe informative images; give decorative ones alt="".',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const images = $('img, input[type="image" i], area[href], [role="img"]')
      .toArray()
      .filter((el) => !isHiddenByMarkup(el) && el.attribs['aria-hidden'] !== 'true');
    const missing = images.filter((el) => {
      const role = el.attribs.role?.toLowerCase();
      if (el.name === 'img' && (el.attribs.alt !== undefined || role === 'presentation' || role === 'none'))
        return false;
      return accessibleName($, el).name === '';
    });
    return violations(
      missing.length,
      images.length,
      {
        none: 'Page has no images',
        pass: `Every image has a text alternative (${plural(images.length, 'image')})`,
        fail: `${missing.length} of ${images.length} images have no alt text${example(missing)}`,
      },
      { images: images.length, missing: missing.slice(0, 10).map(describe) },
    );
  },
});
