import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { metaContent } from '../content/lib/page.ts';

// Search snippets show up to about 155-160 characters; under ~50 says too little to earn a click.
const MIN = 50;
const MAX = 160;

export default defineCheck({
  meta: {
    id: 'seo-meta-description',
    title: 'Page has a meta description',
    failureTitle: 'Meta description is missing',
    description:
      'Search engines often use the meta description as the snippet under the title. Write a unique summary of the page of about 50-160 characters.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const content = metaContent(loadDocument(Page.html), 'description');
    if (content === null) return fail('Meta description is missing');
    if (content === '') return fail('Meta description is missing: the description meta tag is empty');
    const evidence = { description: content, length: content.length };
    if (content.length < MIN) {
      return warn(
        `Meta description is short (${content.length} characters); aim for ${MIN}-${MAX}`,
        0.7,
        evidence,
      );
    }
    if (content.length > MAX) {
      return warn(
        `Meta description is ${content.length} characters; search results cut it off after about ${MAX}`,
        0.85,
        evidence,
      );
    }
    return pass(`Page has a meta description (${content.length} characters)`, evidence);
  },
});
