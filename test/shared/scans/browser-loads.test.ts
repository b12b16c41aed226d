import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArtifactSet } from '../../../shared/scan-engine/artifacts.ts';
import { isGatherError } from '../../../shared/scan-engine/artifacts.ts';
import { BROWSER_LOAD_MISMATCH, checkBrowserLoads } from '../../../shared/scans/browser-loads.ts';
import { missingArtifacts, partialReasons } from '../../../shared/scans/partial.ts';

// A full scan's browser artifacts count only when the browser loaded the page the HTTP fetch got.

const page = (status: number) => ({ status, finalUrl: 'http://127.0.0.1:8080/' }) as never;
const rendered = (document: unknown) => ({ finalUrl: 'http://127.0.0.1:8080/', document }) as never;
const lighthouse = (runtimeError?: string) =>
  ({
    lighthouseVersion: '12',
    categories: {},
    audits: {},
    ...(runtimeError ? { runtimeError } : {}),
  }) as never;

const reasonOf = (set: ArtifactSet, name: 'Rendered' | 'Lighthouse') => {
  const a = set[name];
  assert.ok(isGatherError(a), `${name} is a gather error`);
  assert.equal(a.error.code, BROWSER_LOAD_MISMATCH);
  return a.error.message;
};

describe('checkBrowserLoads', () => {
  it('a render the URL policy refused is not the page: the scan is partial and says why', () => {
    const set = checkBrowserLoads({
      Page: page(200),
      Rendered: rendered({ status: 403, proxy: 'refused' }),
      Lighthouse: lighthouse(
        'ERRORED_DOCUMENT_REQUEST: Lighthouse was unable to reliably load the page (Status code: 403)',
      ),
    });
    assert.match(
      reasonOf(set, 'Rendered'),
      /refused by the URL policy \(HTTP 403\), while the HTTP fetch got 200/,
    );
    assert.match(reasonOf(set, 'Lighthouse'), /Status code: 403/);
    assert.deepEqual(
      missingArtifacts('full', set as Record<string, unknown>).filter(
        (n) => n === 'Rendered' || n === 'Lighthouse',
      ),
      ['Rendered', 'Lighthouse'],
    );
    assert.match(
      partialReasons('full', set as Record<string, unknown>).Rendered!,
      /refused by the URL policy/,
    );
  });

  it('a proxy error, or another status than the HTTP fetch saw, is not the page either', () => {
    const unreachable = checkBrowserLoads({
      Page: page(200),
      Rendered: rendered({ status: 502, proxy: 'unreachable' }),
    });
    assert.match(reasonOf(unreachable, 'Rendered'), /unreachable through the proxy/);
    // The site itself answered the browser differently (a bot wall keyed on the user agent).
    const other = checkBrowserLoads({ Page: page(200), Rendered: rendered({ status: 429 }) });
    assert.match(reasonOf(other, 'Rendered'), /answered HTTP 429, the HTTP fetch 200/);
  });

  it('keeps loads that saw what the fetch saw, and Lighthouse errors that are not about the document', () => {
    const set: ArtifactSet = {
      Page: page(200),
      Rendered: rendered({ status: 200 }),
      Lighthouse: lighthouse('NO_FCP: The page did not paint any content.'),
    };
    assert.deepEqual(checkBrowserLoads(set), set);
    // An error page is judged by the fetch (not scored); a browser that saw the same status is consistent.
    const notFound: ArtifactSet = { Page: page(404), Rendered: rendered({ status: 404 }) };
    assert.deepEqual(checkBrowserLoads(notFound), notFound);
  });
});
