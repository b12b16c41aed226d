import { defineCheck, fail, notApplicable, pass, warn } from '../../scan-engine/check.ts';
import { servedLlmsTxt } from '../llms-txt.ts';

export default defineCheck({
  meta: {
    id: 'llms-txt-sections',
    title: 'llms.txt groups its links into sections',
    failureTitle: 'llms.txt has no sections of links',
    description:
      'H2 sections ("## Docs", "## API", "## Optional") tell a model what each group of links is for and what it may skip when short of context.',
    requiredArtifacts: ['LlmsTxt'],
  },
  run({ LlmsTxt }) {
    const doc = servedLlmsTxt(LlmsTxt);
    if (!doc) return notApplicable('No llms.txt');
    const withLinks = doc.sections.filter((s) => s.links.length > 0);
    const evidence = {
      sections: doc.sections.map((s) => ({ name: s.name, links: s.links.length })),
      hasOptional: doc.hasOptional,
    };
    if (withLinks.length === 0)
      return fail('llms.txt has no H2 section with links', {
        ...evidence,
        fix: 'Add "## Docs" with a list of "- [Page](url): notes" links',
      });
    if (withLinks.length === 1)
      return warn(`llms.txt has one section of links ("${withLinks[0]?.name}")`, 0.7, evidence);
    return pass(
      `llms.txt has ${withLinks.length} sections of links${doc.hasOptional ? ', including "Optional"' : ''}`,
      evidence,
    );
  },
});
