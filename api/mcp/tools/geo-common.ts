import { z } from 'zod';
import type { GeoRun } from '../../../shared/db/tables/geo.ts';
import { AppError } from '../../../shared/errors.ts';
import { presentRun } from '../../../shared/geo/views.ts';
import { awaitRun, isFinished } from '../../../shared/geo/visibility-runs.ts';
import type { ToolContext, ToolOutcome } from '../tool.ts';

// What the GEO tools share with the REST endpoints: the same plan gate, jobs and views; a run
// that outlasts the wait is answered with its id and how to poll.

export const siteIdArg = z
  .number()
  .int()
  .positive()
  .describe('Monitored site id (GET /api/v1/monitor/sites)');

// The SDK client gives up on a request after 60 s by default: answer well before that.
const MCP_WAIT_CAP_MS = 50_000;
export const mcpWait = (ctx: ToolContext) => Math.min(ctx.services.config.GEO_WAIT_MS, MCP_WAIT_CAP_MS);

export async function runOutcome(ctx: ToolContext, tool: string, run: GeoRun): Promise<ToolOutcome> {
  const done = await awaitRun(ctx.services, run, mcpWait(ctx));
  if (!isFinished(done)) {
    const poll = `/api/v1/geo/runs/${done.id}`;
    return {
      structured: { runId: done.id, kind: done.kind, status: done.status, poll },
      text: `Run ${done.id} is still ${done.status}. Call ${tool} again with the same arguments in a minute (it joins the running run), or GET ${poll} with the same Authorization header.`,
    };
  }
  if (done.status === 'failed') {
    const e = done.error ?? { code: 'answer_engine_failed', message: 'The run failed.' };
    throw new AppError(502, e.code, 'Answer engine failed', e.message, { runId: done.id });
  }
  const body = await presentRun(ctx.services.db, done);
  return { structured: body, text: '' };
}
