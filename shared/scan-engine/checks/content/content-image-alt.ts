import { defineCheck, graded, notApplicable } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { collapse, plural } from './lib/page.ts';

// Alt text is content: image search and text-only readers see it instead of the picture. This
// measures how many content images carry a real description; alt="" (declared decorative) and
// spacer images are left out, placeholders such as "...", "image" or a file name count as none.
const PLACEHOLDER =
  /^(\.+|…|-+|image|img|photo|picture|pic|graphic|icon|banner|untitled|spacer|alt|null|undefined|\d+)$/i;
const FILE_NAME = /\.(jpe?g|png|gif|webp|avif|svg|bmp)$/i;

export default defineCheck({
  meta: {
    id: 'content-image-alt',
    title: 'Images are described',
    failureTitle: 'Images lack descriptive alt text',
    description:
      'Describe what each content image shows in its alt text; it feeds image search and reaches readers who cannot see the image.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const images = $('img')
      .toArray()
      .filter((img) => {
        const w = Number.parseInt(img.attribs.width ?? '', 10);
        const h = Number.parseInt(img.attribs.height ?? '', 10);
        const role = (img.attribs.role ?? '').toLowerCase();
        return (
          img.attribs.alt?.trim() !== '' && !(w <= 2 || h <= 2) && role !== 'presentation' && role !== 'none'
        );
      });
    if (images.length === 0) return notApplicable('Page has no content images');
    const undescribed = images.filter((img) => {
      const alt = collapse(img.attribs.alt ?? '');
      return !alt || PLACEHOLDER.test(alt) || FILE_NAME.test(alt);
    });
    const described = images.length - undescribed.length;
    const evidence = {
      images: images.length,
      described,
      placeholders: undescribed.filter((i) => i.attribs.alt !== undefined).map((i) => i.attribs.alt),
    };
    const score = described / images.length;
    if (score >= 0.9) {
      return graded(
        score,
        `Content images have descriptive alt text (${described} of ${plural(images.length, 'image')})`,
        evidence,
      );
    }
    const placeholders = evidence.placeholders.length;
    return graded(
      score,
      `${undescribed.length} of ${images.length} images lack descriptive alt text${placeholders ? ` (${placeholders} with a placeholder such as "${evidence.placeholders[0]}")` : ''}`,
      evidence,
    );
  },
});
