import { z } from 'zod';
import { requestRun } from '../../../shared/geo/visibility-runs.ts';
import { RunPending, ShareOfVoice } from '../../routes/geo/schema.ts';
import { defineTool } from '../tool.ts';
import { runOutcome, siteIdArg } from './geo-common.ts';

export default defineTool({
  name: 'run_share_of_voice',
  title: 'Share of voice against your competitors',
  description:
    "Asks the account's canonical prompts of every configured answer engine once for all sites and ranks your site " +
    'against your monitoring competitors by how often each is cited. Same result as POST ' +
    '/api/v1/geo/sites/{site_id}/geo-sov/run. Needs an active Growth or Agency plan.',
  input: z.strictObject({ site_id: siteIdArg }),
  output: z.union([ShareOfVoice, RunPending]),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ site_id }, ctx) {
    const run = await requestRun(ctx.services, ctx.principal.accountId, site_id, 'sov', 'mcp');
    const out = await runOutcome(ctx, 'run_share_of_voice', run);
    if (out.text) return out;
    const b = out.structured as {
      ownSite?: { citationRate: number };
      yourRank?: number;
      gapToLeader?: number;
      status?: string;
      error?: { message: string } | null;
    };
    const text =
      b.status === 'skipped'
        ? `Run skipped: ${b.error?.message ?? 'no reason recorded'}`
        : `Your citation rate ${b.ownSite?.citationRate}; rank ${b.yourRank}; gap to the leader ${b.gapToLeader}.`;
    return { structured: out.structured, text };
  },
});
