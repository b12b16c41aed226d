import { z } from 'zod';
import type { Scan, ScanMode } from '../../../shared/db/tables/scans.ts';
import {
  awaitScan,
  pendingBody,
  requestScan,
  scanFailure,
  targetErrorStatus,
  vetTargetUrl,
} from '../../../shared/scans/scans.ts';
import type { ScanView } from '../../routes/scans/index.ts';
import type { ToolContext, ToolOutcome } from '../tool.ts';

// What the scan tools share with the REST scan endpoints: the same job, TTL cache and bounded
// wait; a scan still running when the wait ends is answered with its id and how to poll.

export const urlArg = z.string().min(1).max(2048).describe('Host or full URL to scan, e.g. example.com');
export const modeArg = z
  .enum(['quick', 'full'])
  .default('full')
  .describe('quick: plain HTTP only, about a second; full (default): adds a browser render and Lighthouse');

// The SDK client gives up on a request after 60 s by default: answer well before that.
const MCP_WAIT_CAP_MS = 50_000;

/** Vets the URL, joins or starts the scan, waits within the bound; a failed scan is an error. */
export async function scanFor(
  { services, principal }: ToolContext,
  input: string,
  mode: ScanMode,
): Promise<Scan> {
  const url = await vetTargetUrl(services, input, 'url');
  const scan = await requestScan(services, { url, mode, accountId: principal.accountId });
  const done = await awaitScan(services, scan, Math.min(services.config.SCAN_WAIT_MS, MCP_WAIT_CAP_MS));
  if (done.status === 'failed') throw scanFailure(done);
  // Every scan tool presents the page (none serves the site-level llms.txt view).
  const errorStatus = targetErrorStatus(done);
  if (errorStatus) throw errorStatus;
  return done;
}

export const isPending = (scan: Scan) => scan.status !== 'done';

/** The REST 202 body (same poll path) and a summary telling the agent how to get the result. */
export function pendingOutcome(
  tool: string,
  scan: Scan,
  view: ScanView,
  withRecommendation = false,
): ToolOutcome {
  const poll = `/api/v1/scans/${scan.id}?view=${view}${withRecommendation ? '&include_recommendation=true' : ''}`;
  const body = pendingBody(scan, poll);
  return {
    structured: body,
    text:
      `Scan ${scan.id} of ${scan.url} is still ${body.status}${body.phase ? ` (${body.phase})` : ''} after ${Math.round(body.elapsedMs / 1000)} s. ` +
      `Call ${tool} again with the same arguments in a few seconds to get the result (it joins the running scan), ` +
      `or GET ${poll} on this server${view === 'a' ? ' with the same Authorization header' : ''}.`,
  };
}

/** "security 42, speed 55, mobile 60": the weakest dimensions first. */
export const weakest = (dimensions: { id: string; score: number }[], n = 3) =>
  [...dimensions]
    .sort((a, b) => a.score - b.score)
    .slice(0, n)
    .map((d) => `${d.id} ${d.score}`)
    .join(', ');
