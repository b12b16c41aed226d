import { defineCheck, fail, notApplicable, pass } from '../../scan-engine/check.ts';
import { servedLlmsTxt } from '../llms-txt.ts';

export default defineCheck({
  meta: {
    id: 'llms-txt-structure',
    title: 'llms.txt follows the format',
    failureTitle: 'llms.txt does not follow the format',
    description:
      'The format requires an H1 title first, at most one H1, and file lists of "- [name](url): notes" under H2 sections. Tools that parse llms.txt skip files that break it.',
    requiredArtifacts: ['LlmsTxt'],
  },
  run({ LlmsTxt }) {
    const doc = servedLlmsTxt(LlmsTxt);
    if (!doc) return notApplicable('No llms.txt');
    const evidence = { errors: doc.errors, warnings: doc.warnings.slice(0, 5) };
    if (!doc.valid)
      return fail(`llms.txt is malformed: ${doc.errors[0] ?? 'unknown error'}`, {
        ...evidence,
        fix: doc.errors[0],
      });
    return pass(`llms.txt is well-formed, titled "${doc.title}"`, evidence);
  },
});
