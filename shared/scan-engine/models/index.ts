import { citabilityModel } from '../../geo-scoring/models/citability.ts';
import { geoModel } from '../../geo-scoring/models/geo.ts';
import { llmsTxtQualityModel } from '../../geo-scoring/models/llms-txt-quality.ts';
import type { ScoringModel } from '../model.ts';
import { agentReadabilityModel } from './agent-readability.ts';
import { monitoringModel } from './monitoring.ts';
import { siteAuditModel } from './site-audit.ts';

// Every scoring model, by id. Add a model with one import and one line below.
export const models: Record<string, ScoringModel> = {
  'site-audit': siteAuditModel,
  'agent-readability': agentReadabilityModel,
  geo: geoModel,
  citability: citabilityModel,
  'llms-txt-quality': llmsTxtQualityModel,
  monitoring: monitoringModel,
};
