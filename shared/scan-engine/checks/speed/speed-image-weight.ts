import { defineCheck, graded, notApplicable } from '../../check.ts';
import { plural } from '../content/lib/page.ts';
import { fetched, kib, scoreWastedMs, seconds, shortName, transferMs } from './lib/network.ts';

// A full-width photo well encoded (WebP/AVIF or JPEG at quality ~75, 1920 px wide) rarely needs
// more than 200 KiB; bytes above that per image are treated as savings, and scored like
// Lighthouse's image opportunities by the time they cost on slow 4G.
const BUDGET = 200 * 1024;

export default defineCheck({
  meta: {
    id: 'speed-image-weight',
    title: 'Images are a reasonable size',
    failureTitle: 'Images are too heavy',
    description:
      "Images are usually most of a page's bytes. Resize them to their display size, use WebP or AVIF, and serve smaller versions to phones with srcset.",
    requiredArtifacts: ['Resources'],
  },
  run({ Resources }) {
    const images = fetched(Resources.entries).filter((e) => e.type === 'image');
    if (images.length === 0) return notApplicable('Page loads no images');
    const total = images.reduce((s, e) => s + e.bytes, 0);
    const heavy = images.filter((e) => e.bytes > BUDGET).sort((a, b) => b.bytes - a.bytes);
    const excess = heavy.reduce((s, e) => s + e.bytes - BUDGET, 0);
    const wastedMs = transferMs(excess);
    const evidence = {
      images: images.length,
      totalBytes: total,
      heavy: heavy.map((e) => ({ url: e.url, bytes: e.bytes })),
    };
    const score = heavy.length === 0 ? 1 : scoreWastedMs(wastedMs);
    if (score >= 0.9) {
      const over = heavy.length
        ? `, ${plural(heavy.length, 'image')} slightly above ${kib(BUDGET)}`
        : `, none above ${kib(BUDGET)}`;
      return graded(
        score,
        `Images are a reasonable size: ${plural(images.length, 'image')}, ${kib(total)} in total${over}`,
        evidence,
      );
    }
    const list = heavy
      .slice(0, 3)
      .map((e) => `${shortName(e.url)} ${kib(e.bytes)}`)
      .join(', ');
    return graded(
      score,
      `${heavy.length} image${heavy.length > 1 ? 's are' : ' is'} heavier than ${kib(BUDGET)} (${list}); optimising could save about ${kib(excess)} (${seconds(wastedMs)} on slow 4G)`,
      evidence,
    );
  },
});
