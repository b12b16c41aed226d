import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { metaContent } from '../content/lib/page.ts';

// The picture on a shared link. Networks fetch it from the URL as written, without resolving it
// against the page, so a relative og:image shows no picture at all.
export default defineCheck({
  meta: {
    id: 'social-share-image',
    title: 'Shared links show an image',
    failureTitle: 'Shared links show no image',
    description:
      'Set og:image to an absolute https URL of an image of about 1200x630 pixels; it is the picture social networks and chat apps show with a link to the page.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const image =
      metaContent($, 'og:image') || metaContent($, 'twitter:image') || metaContent($, 'twitter:image:src');
    if (!image) return fail('No share image (og:image): shared links show no picture');
    const evidence = { image: image.slice(0, 300) };
    if (!/^https?:\/\//i.test(image)) {
      return warn(
        `Share image "${image.slice(0, 80)}" is not an absolute URL, so networks cannot fetch it`,
        0.3,
        evidence,
      );
    }
    if (/^http:/i.test(image) && Page.finalUrl.startsWith('https:')) {
      return warn('Share image is served over plain http; some networks refuse it', 0.7, evidence);
    }
    return pass('Shared links show an image (og:image)', evidence);
  },
});
