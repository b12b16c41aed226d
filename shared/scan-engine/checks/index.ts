import { geoChecks } from '../../geo-scoring/checks/index.ts';
import type { Check } from '../check.ts';
import { accessibilityChecks } from './accessibility/index.ts';
import { agentChecks } from './agent/index.ts';
import { contentChecks } from './content/index.ts';
import { conversionChecks } from './conversion/index.ts';
import { localChecks } from './local/index.ts';
import { mobileChecks } from './mobile/index.ts';
import { securityChecks } from './security/index.ts';
import { seoChecks } from './seo/index.ts';
import { socialChecks } from './social/index.ts';
import { speedChecks } from './speed/index.ts';

// Every check, by id. Ids are unique across folders (a test guards it).
export const allChecks: Check[] = [
  ...seoChecks,
  ...speedChecks,
  ...securityChecks,
  ...accessibilityChecks,
  ...mobileChecks,
  ...contentChecks,
  ...conversionChecks,
  ...agentChecks,
  ...geoChecks,
  ...socialChecks,
  ...localChecks,
];

export const checksById: ReadonlyMap<string, Check> = new Map(allChecks.map((c) => [c.meta.id, c]));
