import type { Variant } from '../../../shared/db/tables/accounts.ts';
import type { ToolDef } from '../tool.ts';
import geoCheck from './geo-check.ts';
import { addGeoPrompt, listGeoPrompts } from './geo-prompts.ts';
import getAuditStatus from './get-audit-status.ts';
import getCitabilityScore from './get-citability-score.ts';
import listAuditProducts from './list-audit-products.ts';
import placeAuditOrder from './place-audit-order.ts';
import runShareOfVoice from './run-share-of-voice.ts';
import runVisibility from './run-visibility.ts';
import scanWebsiteA from './scan-website-a.ts';
import scanWebsiteB from './scan-website-b.ts';

// The tools of each variant (interface.md section 4, "MCP"); a key sees its own variant's tools.
export const TOOLS: Record<Variant, ToolDef[]> = {
  A: [
    scanWebsiteA,
    listAuditProducts,
    placeAuditOrder,
    getAuditStatus,
    geoCheck,
    runVisibility,
    runShareOfVoice,
    listGeoPrompts,
    addGeoPrompt,
  ],
  B: [scanWebsiteB, getCitabilityScore],
};
