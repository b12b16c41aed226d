import { defineCheck, fail, graded, notApplicable } from '../../scan-engine/check.ts';
import { allLinks, servedLlmsTxt } from '../llms-txt.ts';

// A handful of links covers a small site's key pages; fewer leaves a model guessing.
const TARGET_LINKS = 5;

export default defineCheck({
  meta: {
    id: 'llms-txt-links',
    title: 'llms.txt links to the key pages',
    failureTitle: 'llms.txt links to few or broken pages',
    description:
      'Each link should resolve to a real http(s) page, ideally a clean markdown version of it (page.md). List the pages a model needs to answer questions about the site.',
    requiredArtifacts: ['LlmsTxt'],
  },
  run({ LlmsTxt }) {
    const doc = servedLlmsTxt(LlmsTxt);
    if (!doc) return notApplicable('No llms.txt');
    const links = allLinks(doc);
    if (links.length === 0)
      return fail('llms.txt links to no pages', { fix: 'List the key pages as "- [Page](url): notes"' });
    const resolved = links.map((l) => {
      try {
        return new URL(l.url, LlmsTxt.url);
      } catch {
        return null;
      }
    });
    const valid = resolved.filter((u) => u !== null && /^https?:$/.test(u.protocol));
    const markdown = valid.filter((u) => /\.md$/i.test(u?.pathname ?? '')).length;
    const broken = links.filter((_, i) => !valid.includes(resolved[i] as URL)).map((l) => l.url);
    const score = Math.min(1, links.length / TARGET_LINKS) * (valid.length / links.length);
    const evidence = {
      links: links.length,
      invalid: broken.slice(0, 5),
      markdown,
      fix: broken.length ? `Fix link URLs: ${broken.slice(0, 3).join(', ')}` : undefined,
    };
    const note = broken.length ? `, ${broken.length} with unusable URLs` : '';
    return graded(score, `llms.txt lists ${links.length} links (${markdown} to markdown)${note}`, evidence);
  },
});
