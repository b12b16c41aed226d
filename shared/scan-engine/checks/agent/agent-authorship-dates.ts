import { authorship } from '../../../geo-scoring/authorship.ts';
import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';

export default defineCheck({
  meta: {
    id: 'agent-authorship-dates',
    title: 'Page names its author and date',
    failureTitle: 'Page names no author or date',
    description:
      'Answer engines prefer sources they can attribute and date. Add a visible byline and date, and mark them up (meta author, article:published_time, or JSON-LD author and datePublished).',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const a = authorship(loadDocument(Page.html));
    const date = a.modified ?? a.published;
    const evidence = { ...a };
    if (a.author && date) return pass(`Attributed to ${a.author}, dated ${date}`, evidence);
    if (a.author) return warn(`Attributed to ${a.author} but undated`, 0.5, evidence);
    if (date) return warn(`Dated ${date} but names no author`, 0.5, evidence);
    return fail('No author or publication date found', evidence);
  },
});
