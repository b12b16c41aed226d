import { defineCheck, fail, notApplicable, pass, warn } from '../../scan-engine/check.ts';
import { servedLlmsTxt } from '../llms-txt.ts';

// One or two sentences: long enough to say what the site is, short enough to be a summary.
const LENGTH = { min: 20, max: 500 };

export default defineCheck({
  meta: {
    id: 'llms-txt-summary',
    title: 'llms.txt summarises the site',
    failureTitle: 'llms.txt has no summary',
    description:
      'The blockquote after the title is what a model reads first: one or two sentences saying what the site or product is and who it is for.',
    requiredArtifacts: ['LlmsTxt'],
  },
  run({ LlmsTxt }) {
    const doc = servedLlmsTxt(LlmsTxt);
    if (!doc) return notApplicable('No llms.txt');
    const s = doc.summary?.trim() ?? '';
    const evidence = { summary: s || null, length: s.length };
    if (s === '')
      return fail('llms.txt has no "> summary" blockquote after its title', {
        ...evidence,
        fix: 'Add a "> one-sentence summary" line right after the H1',
      });
    if (s.length < LENGTH.min)
      return warn(`llms.txt summary is very short (${s.length} characters)`, 0.5, evidence);
    if (s.length > LENGTH.max)
      return warn(
        `llms.txt summary is long (${s.length} characters); keep it to a sentence or two`,
        0.7,
        evidence,
      );
    return pass('llms.txt opens with a summary', evidence);
  },
});
