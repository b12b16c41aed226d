import { LETTER_GRADES, type ModelCheckRef, type ScoringModel } from '../../scan-engine/model.ts';
import { citabilityModel } from './citability.ts';
import { LLMS_TXT_CHECKS } from './llms-txt-quality.ts';

// GEO check (variant A): six signals worth points, 85 in total (decisions.md "GEO"). A signal's
// points are its share of maxScore by its checks' weighted score. The llmstxt and citability
// signals reuse the llms.txt quality and citability models' checks and weights, so the free tools
// and the GEO check can never disagree.
export interface GeoSignal {
  id: string;
  name: string;
  maxScore: number;
  checks: ModelCheckRef[];
}

// The citability model's dimension weights become check weights within the signal.
const citabilityChecks: ModelCheckRef[] = citabilityModel.dimensions.flatMap((d) =>
  d.checks.map((c) => ({ id: c.id, weight: d.weight * c.weight })),
);

export const GEO_SIGNALS: readonly GeoSignal[] = [
  {
    id: 'crawlers',
    name: 'AI crawler access',
    maxScore: 20,
    checks: [{ id: 'geo-ai-crawler-access', weight: 1 }],
  },
  { id: 'llmstxt', name: 'llms.txt quality', maxScore: 15, checks: LLMS_TXT_CHECKS },
  { id: 'schema', name: 'Schema coverage', maxScore: 15, checks: [{ id: 'geo-schema-coverage', weight: 1 }] },
  { id: 'citability', name: 'Citability signals', maxScore: 15, checks: citabilityChecks },
  { id: 'indexnow', name: 'IndexNow', maxScore: 10, checks: [{ id: 'geo-indexnow', weight: 1 }] },
  { id: 'https', name: 'HTTPS', maxScore: 10, checks: [{ id: 'geo-https', weight: 1 }] },
];

export const GEO_MAX_SCORE = GEO_SIGNALS.reduce((s, x) => s + x.maxScore, 0);

/** The signals as a scoring model (weights = share of the 85 points); grades on the percentage. */
export const geoModel: ScoringModel = {
  id: 'geo',
  version: '1.1.0',
  description: 'GEO: AI crawler access, llms.txt, schema, citability, IndexNow, HTTPS',
  dimensions: GEO_SIGNALS.map((s) => ({
    id: s.id,
    name: s.name,
    weight: s.maxScore / GEO_MAX_SCORE,
    checks: s.checks,
  })),
  grades: LETTER_GRADES,
};
