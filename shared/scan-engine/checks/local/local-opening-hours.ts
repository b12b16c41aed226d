import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { bodyText } from '../content/lib/page.ts';
import { structuredData } from '../seo/lib/structured-data.ts';
import { anyNodeHas } from './lib/local.ts';

// "Open now?" is among the commonest local questions; search engines answer it from
// openingHours / openingHoursSpecification, visitors from the page text.
const HOURS_HEADING =
  /\b(opening hours|opening times|hours of operation|business hours|office hours|we're open|we are open)\b/i;
const DAY_AND_TIME =
  /\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\b[^.\n]{0,25}?\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?\s*(?:-|–|to)\s*\d{1,2}(?:[:.]\d{2})?/i;

export default defineCheck({
  meta: {
    id: 'local-opening-hours',
    title: 'Opening hours are published',
    failureTitle: 'Opening hours are not published',
    description:
      'Show your opening hours on the page and add them to your LocalBusiness structured data (openingHoursSpecification), so search results can say whether you are open.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const data = structuredData($);
    const inSchema = anyNodeHas(data, 'openingHours') || anyNodeHas(data, 'openingHoursSpecification');
    const text = bodyText($);
    const onPage = HOURS_HEADING.test(text) || DAY_AND_TIME.test(text);
    const evidence = { inSchema, onPage };
    if (inSchema) return pass('Opening hours are in the structured data', evidence);
    if (onPage) return warn('Opening hours are on the page but not in the structured data', 0.6, evidence);
    return fail('No opening hours on the page or in structured data', evidence);
  },
});
