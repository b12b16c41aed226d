import { defineCheck, graded, notApplicable } from '../../scan-engine/check.ts';
import { allLinks, servedLlmsTxt } from '../llms-txt.ts';

// Full marks when most links say what they hold.
const TARGET_SHARE = 0.8;

export default defineCheck({
  meta: {
    id: 'llms-txt-link-notes',
    title: 'llms.txt links say what they hold',
    failureTitle: 'llms.txt links have no descriptions',
    description:
      'A note after each link ("- [Pricing](/pricing.md): plans, prices and limits") lets a model pick the right page without fetching them all.',
    requiredArtifacts: ['LlmsTxt'],
  },
  run({ LlmsTxt }) {
    const doc = servedLlmsTxt(LlmsTxt);
    if (!doc) return notApplicable('No llms.txt');
    const links = allLinks(doc);
    if (links.length === 0) return notApplicable('llms.txt has no links');
    const noted = links.filter((l) => l.note).length;
    return graded(
      Math.min(1, noted / links.length / TARGET_SHARE),
      `${noted} of ${links.length} llms.txt links carry a description`,
      {
        noted,
        links: links.length,
        fix: noted < links.length ? 'Add ": what this page covers" after each link' : undefined,
      },
    );
  },
});
