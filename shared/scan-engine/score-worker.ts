import { setPriority } from 'node:os';
import { isMainThread, parentPort } from 'node:worker_threads';
import { type CrawledDocument, crawlRefs } from '../audits/crawl-refs.ts';
import { toJsonb } from '../db/json.ts';
import type { ArtifactSet, PageArtifact } from './artifacts.ts';
import type { ModelScore } from './engine.ts';
import { pageRefs } from './gatherers/page-refs.ts';
import { sitemapDigest } from './parsers/sitemap.ts';
import { scoreArtifacts } from './score.ts';

// The scoring thread's entry (started by score-thread.ts): scores the artifact sets posted to it
// (and writes a scan's set and results as jsonb text for its row), reads pages' links and
// sitemaps for the quick gatherers (page-refs.ts, parsers/sitemap.ts) and the audit crawl
// (audits/crawl-refs.ts), one request at a time, answering each by its id. A request it cannot do or answer (a check's error escaping, a result that does
// not clone) is handed back, so the caller does it in its own thread and gets the same result or
// the same error it always would.

export type ThreadRequest =
  | { id: number; kind: 'score'; artifacts: ArtifactSet; models: readonly string[] }
  | { id: number; kind: 'scoreToStore'; artifacts: ArtifactSet; models: readonly string[] }
  | { id: number; kind: 'pageRefs'; page: PageArtifact }
  | { id: number; kind: 'sitemapDigest'; xml: string; keep: number }
  | { id: number; kind: 'crawlRefs'; page: CrawledDocument; origin: string };

export type ThreadReply = { id: number; result: unknown } | { id: number; handBack: true };

/**
 * A scan's scores, and its artifact set and results as jsonb text for its row: written where the
 * set already is, so a page's megabytes are made safe and serialized off the caller's event loop.
 */
export interface ScoredToStore {
  results: Record<string, ModelScore>;
  artifactsJsonb: string;
  resultsJsonb: string;
}

/** A request's work, in whichever thread runs it. */
export function answer(request: ThreadRequest): unknown {
  switch (request.kind) {
    case 'score':
      return scoreArtifacts(request.artifacts, request.models);
    case 'scoreToStore': {
      const results = scoreArtifacts(request.artifacts, request.models);
      const artifactsJsonb = toJsonb(request.artifacts);
      return { results, artifactsJsonb, resultsJsonb: toJsonb(results) } satisfies ScoredToStore;
    }
    case 'pageRefs':
      return pageRefs(request.page);
    case 'sitemapDigest':
      return sitemapDigest(request.xml, request.keep);
    case 'crawlRefs':
      return crawlRefs(request.page, request.origin);
  }
}

/**
 * The scoring thread's nice value: below its process's main thread (0), whose event loop carries
 * heartbeats, job pickup and every other scan's I/O, and above the browsers (10). On a busy machine
 * a long page's scoring then waits for a core instead of the main thread waiting behind it.
 */
export const SCORING_NICE = 5;

// Linux applies a priority set for pid 0 to the calling thread alone (and only the thread does
// it: a main thread importing this module keeps its own). Elsewhere, or where it is not allowed,
// the thread keeps its process's priority.
if (!isMainThread) {
  try {
    setPriority(SCORING_NICE);
  } catch {
    // keeps the default priority
  }
}

const port = parentPort;
port?.on('message', (request: ThreadRequest) => {
  try {
    port.postMessage({ id: request.id, result: answer(request) } satisfies ThreadReply);
  } catch {
    port.postMessage({ id: request.id, handBack: true } satisfies ThreadReply);
  }
});
