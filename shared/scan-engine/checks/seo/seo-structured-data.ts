import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { listText } from '../content/lib/page.ts';
import { structuredData } from './lib/structured-data.ts';

export default defineCheck({
  meta: {
    id: 'seo-structured-data',
    title: 'Page has valid structured data',
    failureTitle: 'Structured data is invalid',
    description:
      'schema.org structured data (JSON-LD) describes the page to search engines and makes it eligible for rich results. Add a JSON-LD block with a schema.org @context and @type.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const data = structuredData(loadDocument(Page.html));
    const types = [...new Set([...data.types, ...data.microdataTypes])];
    const evidence = { blocks: data.blocks, types, errors: data.errors };
    if (data.errors.length > 0) return fail(data.errors[0] as string, evidence);
    if (types.length === 0) {
      return warn(
        data.blocks > 0 ? 'JSON-LD present but declares no @type' : 'No structured data (JSON-LD) found',
        0.4,
        evidence,
      );
    }
    if (data.missingContext > 0) {
      return warn('JSON-LD has no @context, so its types are not recognised as schema.org', 0.5, evidence);
    }
    return pass(`Structured data declares ${listText(types)}`, evidence);
  },
});
