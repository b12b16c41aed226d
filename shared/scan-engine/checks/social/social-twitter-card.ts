import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { metaContent } from '../content/lib/page.ts';

// X (Twitter) draws a link card only when twitter:card names a card type; it then fills in the
// title, description and image from Open Graph when its own tags are absent.
const CARD_TYPES = ['summary', 'summary_large_image', 'app', 'player'];

export default defineCheck({
  meta: {
    id: 'social-twitter-card',
    title: 'Page declares an X (Twitter) card',
    failureTitle: 'No X (Twitter) card',
    description:
      'Add <meta name="twitter:card" content="summary_large_image"> so links to the page show as a card with its image on X; the other fields can come from your Open Graph tags.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const card = metaContent($, 'twitter:card');
    const hasOpenGraph = Boolean(metaContent($, 'og:title') || metaContent($, 'og:image'));
    const evidence = { card, hasOpenGraph };
    if (card && CARD_TYPES.includes(card.toLowerCase()))
      return pass(`Page declares a ${card} card for X`, evidence);
    if (card) return warn(`twitter:card "${card.slice(0, 40)}" is not a card type X knows`, 0.4, evidence);
    if (hasOpenGraph)
      return warn('No twitter:card tag: X shows a bare link despite the Open Graph tags', 0.5, evidence);
    return fail('No twitter:card or Open Graph tags: shared links show as bare URLs', evidence);
  },
});
