import { z } from 'zod';
import { requestRun } from '../../../shared/geo/visibility-runs.ts';
import { RunPending, VisibilityRun } from '../../routes/geo/schema.ts';
import { defineTool } from '../tool.ts';
import { runOutcome, siteIdArg } from './geo-common.ts';

export default defineTool({
  name: 'run_visibility',
  title: 'AI-visibility test of a monitored site',
  description:
    "Asks the account's canonical prompts of every configured answer engine (several times each) and reports " +
    'how often the site is cited, with a 95% interval, mentions, citation positions and every raw answer. ' +
    'Same result as POST /api/v1/geo/sites/{site_id}/visibility/run. Needs an active Growth or Agency plan.',
  input: z.strictObject({ site_id: siteIdArg }),
  output: z.union([VisibilityRun, RunPending]),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ site_id }, ctx) {
    const run = await requestRun(ctx.services, ctx.principal.accountId, site_id, 'visibility', 'mcp');
    const out = await runOutcome(ctx, 'run_visibility', run);
    const b = out.structured as {
      citationRate?: number;
      interval?: { low: number; high: number };
      citedCount?: number;
      totalPrompts?: number;
      answers?: number;
      citedAnswers?: number;
      status?: string;
      error?: { message: string } | null;
    };
    if (out.text) return out;
    const text =
      b.status === 'skipped'
        ? `Run skipped: ${b.error?.message ?? 'no reason recorded'}`
        : `${b.citedCount} of ${b.totalPrompts} prompts cited at least once; ${b.citedAnswers} of ${b.answers} answers cite the site: citation rate ${b.citationRate} (95% interval ${b.interval?.low}-${b.interval?.high}).`;
    return { structured: out.structured, text };
  },
});
