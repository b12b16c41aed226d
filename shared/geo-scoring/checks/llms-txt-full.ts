import { defineCheck, notApplicable, pass, warn } from '../../scan-engine/check.ts';
import { servedLlmsTxt } from '../llms-txt.ts';

export default defineCheck({
  meta: {
    id: 'llms-txt-full',
    title: 'Site also publishes /llms-full.txt',
    failureTitle: 'No /llms-full.txt',
    description:
      'llms-full.txt carries the linked content itself in one markdown file, so an agent can load the whole site in one request. Optional, but useful for documentation sites.',
    requiredArtifacts: ['LlmsTxt'],
  },
  run({ LlmsTxt }) {
    if (!servedLlmsTxt(LlmsTxt)) return notApplicable('No llms.txt');
    if (LlmsTxt.fullUrl) return pass('/llms-full.txt is published too', { fullUrl: LlmsTxt.fullUrl });
    return warn('No /llms-full.txt alongside llms.txt (optional)', 0.5, {
      fix: 'Publish /llms-full.txt with the linked pages inlined',
    });
  },
});
