import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { structuredData } from '../seo/lib/structured-data.ts';
import { anyNodeHas } from './lib/local.ts';

// Directions are one tap away when the page links to (or embeds) a map of the location.
const MAP_URL =
  /^https?:\/\/(?:(?:www\.|maps\.)?google\.[a-z.]+\/maps|maps\.google\.[a-z.]+|maps\.app\.goo\.gl|goo\.gl\/maps|maps\.apple\.com|(?:www\.)?openstreetmap\.org|(?:www\.)?bing\.com\/maps|(?:www\.)?waze\.com)/i;

export default defineCheck({
  meta: {
    id: 'local-map-link',
    title: 'Page links to a map of the location',
    failureTitle: 'No map or directions link',
    description:
      'Link to your location on a map (Google Maps, Apple Maps or OpenStreetMap) or embed one, and add hasMap or geo coordinates to your LocalBusiness structured data.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const links = $('a[href], iframe[src]')
      .map((_, el) => el.attribs.href ?? el.attribs.src ?? '')
      .get()
      .filter((u: string) => MAP_URL.test(u.trim()));
    const data = structuredData($);
    const inSchema = anyNodeHas(data, 'hasMap') || anyNodeHas(data, 'geo');
    const evidence = { links: links.slice(0, 3), inSchema };
    if (links.length > 0) return pass('Page links to a map of the location', evidence);
    if (inSchema) return pass('Structured data gives the location on a map', evidence);
    return fail('No map link, embedded map or coordinates', evidence);
  },
});
