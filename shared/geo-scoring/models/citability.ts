import { LETTER_GRADES, type ScoringModel } from '../../scan-engine/model.ts';

// Citability (variant A): how likely answer engines are to quote a page, on a rubric drawn from
// Aggarwal et al., "GEO: Generative Engine Optimization" (KDD 2024). That study rewrote sources
// nine ways and measured their visibility in generative answers: adding statistics, quotations
// and cited sources helped most (up to about 40%), fluent and easy-to-understand text helped
// moderately, keyword stuffing did not. Passage shape follows answer-engine practice: each
// section opens with a 40-60 word direct answer, and sections run about 134-167 words
// (thresholds in shared/geo-scoring/rubric.ts). Weights: the passage-level dimensions (answer
// blocks, self-containment) decide whether there is anything to quote, so together they carry
// 45%; the study's strongest lever, statistics, 20%; structure and readability 20%; quotations,
// sources, first-hand data and attribution 15%.
// Dimension ids are the response's field names.
export const citabilityModel: ScoringModel = {
  id: 'citability',
  version: '1.1.0',
  description: 'Citability: answer blocks, self-containment, structure, statistics, uniqueness',
  dimensions: [
    {
      id: 'answerBlockQuality',
      name: 'Answer block quality',
      weight: 0.25,
      checks: [{ id: 'citability-answer-blocks', weight: 1 }],
    },
    {
      id: 'selfContainment',
      name: 'Self-containment',
      weight: 0.2,
      checks: [{ id: 'citability-self-containment', weight: 1 }],
    },
    {
      id: 'structuralReadability',
      name: 'Structural readability',
      weight: 0.2,
      checks: [{ id: 'citability-structure', weight: 1 }],
    },
    {
      id: 'statisticalDensity',
      name: 'Statistical density',
      weight: 0.2,
      checks: [{ id: 'citability-statistics', weight: 1 }],
    },
    {
      id: 'uniquenessSignals',
      name: 'Uniqueness signals',
      weight: 0.15,
      checks: [{ id: 'citability-uniqueness', weight: 1 }],
    },
  ],
  grades: LETTER_GRADES,
};
