import { defineCheck, fail, pass } from '../../scan-engine/check.ts';
import { absenceReason, servedLlmsTxt } from '../llms-txt.ts';

export default defineCheck({
  meta: {
    id: 'llms-txt-present',
    title: 'Site publishes /llms.txt',
    failureTitle: 'Site has no /llms.txt',
    description:
      'llms.txt (llmstxt.org) is a markdown map of the site for language models: a title, a one-paragraph summary and links to the pages that matter. Publish it at /llms.txt.',
    requiredArtifacts: ['LlmsTxt'],
  },
  run({ LlmsTxt }) {
    if (!servedLlmsTxt(LlmsTxt)) {
      return fail(absenceReason(LlmsTxt), {
        url: LlmsTxt.url,
        status: LlmsTxt.status,
        fix: 'Publish /llms.txt: "# Site name", a "> summary" line, then "## Section" lists of "- [Page](url): what it covers"',
      });
    }
    return pass(`/llms.txt found (${Buffer.byteLength(LlmsTxt.body)} bytes)`, { url: LlmsTxt.url });
  },
});
