import { defineCheck, fail, graded, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { listText } from '../content/lib/page.ts';
import { structuredData } from '../seo/lib/structured-data.ts';
import { anyNodeHas, hasValue, localBusinessNode } from './lib/local.ts';

// Local search (map packs, business panels) reads a LocalBusiness entity: its name, address and
// telephone (NAP) are the properties search engines match against their business listings.
const NAP = ['name', 'address', 'telephone'] as const;

export default defineCheck({
  meta: {
    id: 'local-business-schema',
    title: 'Page describes the business as a LocalBusiness',
    failureTitle: 'No LocalBusiness structured data',
    description:
      'Add schema.org LocalBusiness JSON-LD (or its closest subtype, e.g. Dentist or Restaurant) with the name, address and telephone exactly as on your business listings.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const data = structuredData(loadDocument(Page.html));
    const node = localBusinessNode(data);
    if (!node) {
      if (anyNodeHas(data, 'address')) {
        return warn('Structured data has an address but no LocalBusiness entity', 0.4, { types: data.types });
      }
      return fail('No LocalBusiness structured data', { types: data.types });
    }
    const missing = NAP.filter((p) => !hasValue(node[p]));
    const evidence = { type: node['@type'], missing };
    if (missing.length === 0)
      return pass('LocalBusiness structured data names the business, its address and phone', evidence);
    return graded(
      1 - missing.length / NAP.length,
      `LocalBusiness structured data lacks ${listText([...missing])}`,
      evidence,
    );
  },
});
