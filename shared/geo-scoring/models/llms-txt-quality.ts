import { LETTER_GRADES, type ModelCheckRef, type ScoringModel } from '../../scan-engine/model.ts';

// Quality of a site's llms.txt (llmstxt.org), for the free llms.txt tool and the GEO llmstxt
// signal. Being there and well-formed is most of the value; a summary, sections and described
// links make it useful; llms-full.txt is a small extra. A missing file scores 0 and a malformed
// one at most 40.
export const LLMS_TXT_CHECKS: ModelCheckRef[] = [
  { id: 'llms-txt-present', weight: 0.25, gate: { cap: 0 } },
  { id: 'llms-txt-structure', weight: 0.25, gate: { cap: 40 } },
  { id: 'llms-txt-summary', weight: 0.15 },
  { id: 'llms-txt-sections', weight: 0.1 },
  { id: 'llms-txt-links', weight: 0.15 },
  { id: 'llms-txt-link-notes', weight: 0.05 },
  { id: 'llms-txt-full', weight: 0.05 },
];

export const llmsTxtQualityModel: ScoringModel = {
  id: 'llms-txt-quality',
  version: '1.0.0',
  description: 'llms.txt presence, format and usefulness',
  dimensions: [{ id: 'quality', name: 'llms.txt quality', weight: 1, checks: LLMS_TXT_CHECKS }],
  grades: LETTER_GRADES,
};
