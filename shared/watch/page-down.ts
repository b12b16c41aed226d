import { isGatherError } from '../scan-engine/artifacts.ts';
import type { ScanOutcome } from '../scans/gather-and-score.ts';

/** A watched page that could not be read: its reason in words and a stable code. */
export type PageDown = { status: 'down'; reason: string; code: string };

/**
 * Whether a watched site's scan found its page down: no answer at all, or an HTTP status at or
 * above `downFrom` (each side of the watch says which statuses its users count as down).
 */
export function pageDown(outcome: ScanOutcome, downFrom: number): PageDown | null {
  const page = outcome.artifacts.Page;
  if (!page || isGatherError(page)) {
    const e = page && isGatherError(page) ? page.error : { message: 'page not gathered', code: undefined };
    return { status: 'down', reason: e.message, code: e.code ?? 'site_unreachable' };
  }
  if (page.status >= downFrom)
    return { status: 'down', reason: `the server answered HTTP ${page.status}`, code: 'http_error' };
  return null;
}
