import type { ArtifactSet, GatherError } from '../scan-engine/artifacts.ts';
import { isGatherError } from '../scan-engine/artifacts.ts';

// A full scan's browser render and Lighthouse run load the page again, through the policy proxy.
// A load that ended somewhere else than the HTTP fetch (a refusal by the URL policy, a proxy
// error, another status) measured another page: its artifact becomes a gather error saying so,
// which makes the scan partial (shared/scans/partial.ts), never scored as the page.

export const BROWSER_LOAD_MISMATCH = 'browser_load_mismatch';

// Lighthouse runtime errors about the main document (its status, network, DNS, an interstitial).
const LIGHTHOUSE_DOCUMENT_ERROR = /DOCUMENT_REQUEST|DNS_FAILURE|INTERSTITIAL|NOT_HTML/;

const mismatch = (message: string): GatherError => ({
  error: { code: BROWSER_LOAD_MISMATCH, message },
});

/** The set with each browser artifact that did not load the page the HTTP fetch saw replaced by a gather error. */
export function checkBrowserLoads(artifacts: ArtifactSet): ArtifactSet {
  const page = artifacts.Page;
  if (!page || isGatherError(page)) return artifacts;
  const out = { ...artifacts };
  const rendered = artifacts.Rendered;
  const doc = rendered && !isGatherError(rendered) ? rendered.document : undefined;
  if (doc?.proxy) {
    const what = doc.proxy === 'refused' ? 'refused by the URL policy' : 'unreachable through the proxy';
    out.Rendered = mismatch(
      `The browser's load of the page was ${what} (HTTP ${doc.status}), while the HTTP fetch got ${page.status}: not scored as the page.`,
    );
  } else if (doc && doc.status !== null && doc.status !== page.status) {
    out.Rendered = mismatch(
      `The browser's load of the page answered HTTP ${doc.status}, the HTTP fetch ${page.status}: not scored as the page.`,
    );
  }
  const lh = artifacts.Lighthouse;
  if (lh && !isGatherError(lh) && lh.runtimeError && LIGHTHOUSE_DOCUMENT_ERROR.test(lh.runtimeError)) {
    out.Lighthouse = mismatch(
      `Lighthouse could not load the page the HTTP fetch got (HTTP ${page.status}): ${lh.runtimeError}`,
    );
  }
  return out;
}
