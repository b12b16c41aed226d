import type { Check } from '../../scan-engine/check.ts';
import citabilityAnswerBlocks from './citability-answer-blocks.ts';
import citabilitySelfContainment from './citability-self-containment.ts';
import citabilityStatistics from './citability-statistics.ts';
import citabilityStructure from './citability-structure.ts';
import citabilityUniqueness from './citability-uniqueness.ts';
import geoAiCrawlerAccess from './geo-ai-crawler-access.ts';
import geoHttps from './geo-https.ts';
import geoIndexnow from './geo-indexnow.ts';
import geoSchemaCoverage from './geo-schema-coverage.ts';
import llmsTxtFull from './llms-txt-full.ts';
import llmsTxtLinkNotes from './llms-txt-link-notes.ts';
import llmsTxtLinks from './llms-txt-links.ts';
import llmsTxtPresent from './llms-txt-present.ts';
import llmsTxtSections from './llms-txt-sections.ts';
import llmsTxtStructure from './llms-txt-structure.ts';
import llmsTxtSummary from './llms-txt-summary.ts';

// Checks of this folder, registered here in a stable order: the GEO signals (variant A), the
// citability rubric and the llms.txt quality criteria.
export const geoChecks: Check[] = [
  geoAiCrawlerAccess,
  geoSchemaCoverage,
  geoIndexnow,
  geoHttps,
  citabilityAnswerBlocks,
  citabilitySelfContainment,
  citabilityStructure,
  citabilityStatistics,
  citabilityUniqueness,
  llmsTxtPresent,
  llmsTxtStructure,
  llmsTxtSummary,
  llmsTxtSections,
  llmsTxtLinks,
  llmsTxtLinkNotes,
  llmsTxtFull,
];
