import { Worker, type WorkerOptions } from 'node:worker_threads';
import { type CrawledDocument, type CrawlRefs, crawlRefs } from '../audits/crawl-refs.ts';
import type { ArtifactSet, PageArtifact } from './artifacts.ts';
import type { ModelScore } from './engine.ts';
import { type PageRefs, pageRefs } from './gatherers/page-refs.ts';
import type { CpuThread } from './gatherers/types.ts';
import { type SitemapDigest, sitemapDigest } from './parsers/sitemap.ts';
import { SCAN_MODELS } from './scan-models.ts';
import type { ScoredToStore, ThreadReply, ThreadRequest } from './score-worker.ts';

// Scoring a page is tens of milliseconds of synchronous CPU (hundreds for a long page): run on a
// worker's event loop it delays heartbeats, job pickup and every other scan's I/O. So scans score
// in one long-lived worker thread per process (score-worker.ts), which works through the sets in
// the order they come. Scoring is pure, so the thread gives the same result as scoreArtifacts;
// if the thread cannot start or dies, the sets it held are scored here, in this thread.
// The checks and models are loaded here only then: a process that starts scans loads them once,
// in the thread. The same thread reads each page's links and sitemaps for the quick gatherers
// (page-refs.ts, parsers/sitemap.ts), so the page is parsed there once, for them and for its
// scoring, and neither is parsed on this event loop.

type Settle = { resolve: (r: unknown) => void; reject: (e: unknown) => void };

// Under tsx the sources are .ts; in dist/ (scripts/build.mjs compiles every .ts file) the entry is .js.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const ENTRY = new URL(FROM_SOURCE ? './score-worker.ts' : './score-worker.js', import.meta.url);

let thread: Worker | null = null;
let answered = false; // whether the current thread has answered once (it started)
let disabled = false; // a thread failed before answering anything: score in this thread from now on
let nextId = 1;
const pending = new Map<number, { request: ThreadRequest; settle: Settle }>();

/**
 * The scoring thread's heap: scoring allocates a page's parse tree, texts and word lists, and with
 * V8's default 16 MB semi-spaces a long page runs many scavenges. A 192 MB young generation
 * (64 MB semi-spaces, grown only as the thread needs them) lets most of it die young, in fewer
 * scavenges (docs/benchmarks.md). Exported for the bench, which times scoring in a thread set up
 * the same way.
 */
export const SCORING_THREAD_LIMITS = { maxYoungGenerationSizeMb: 192 } as const;

function start(): Worker {
  const w = moduleThread(ENTRY, { resourceLimits: SCORING_THREAD_LIMITS });
  answered = false;
  w.on('message', (reply: ThreadReply) => {
    answered = true;
    const job = pending.get(reply.id);
    if (!job) return;
    pending.delete(reply.id);
    if ('result' in reply) job.settle.resolve(reply.result);
    else doHere(job.request, job.settle);
    if (pending.size === 0) w.unref();
  });
  const fail = () => {
    if (thread !== w) return;
    thread = null;
    if (!answered) disabled = true;
    // The sets it held are scored here, in the order they were sent.
    const held = [...pending.values()];
    pending.clear();
    for (const job of held) doHere(job.request, job.settle);
  };
  w.on('error', fail);
  w.on('exit', fail);
  // Idle, the thread keeps nobody alive (a CLI scan exits when done); busy, it holds the process.
  w.unref();
  return w;
}

/**
 * A worker thread running the module at `entry`. From source, tsx may be registered in this
 * thread only (bin/sightline.js does it through its API, which a new thread does not inherit): the
 * thread registers it itself, then loads its entry.
 */
export function moduleThread(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const boot =
    `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
    `register();\nawait import(${JSON.stringify(entry.href)});\n`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
    execArgv: [],
    ...options,
  });
}

/** scoreArtifacts in this thread, its modules loaded on first use (a one-shot scan, the fallback). */
export async function scoreInThisThread(
  artifacts: ArtifactSet,
  models: readonly string[] = SCAN_MODELS,
): Promise<Record<string, ModelScore>> {
  const { scoreArtifacts } = await import('./score.ts');
  return scoreArtifacts(artifacts, models);
}

/** A request done in this thread: the fallback when the thread cannot do it. */
function doHere(request: ThreadRequest, settle: Settle): void {
  if (request.kind === 'scoreToStore') {
    // The thread's own answer, its modules (every check) loaded here only now.
    import('./score-worker.ts').then((m) => m.answer(request)).then(settle.resolve, settle.reject);
    return;
  }
  if (request.kind !== 'score') {
    try {
      settle.resolve(
        request.kind === 'pageRefs'
          ? pageRefs(request.page)
          : request.kind === 'crawlRefs'
            ? crawlRefs(request.page, request.origin)
            : sitemapDigest(request.xml, request.keep),
      );
    } catch (err) {
      settle.reject(err);
    }
    return;
  }
  scoreInThisThread(request.artifacts, request.models).then(settle.resolve, settle.reject);
}

/** Starts the scoring thread ahead of the first set (its modules load while a scan gathers). */
export function warmScoreThread(): void {
  if (!thread && !disabled) {
    try {
      thread = start();
    } catch {
      disabled = true;
    }
  }
}

/** scoreArtifacts, off this thread's event loop: the same results (or the same error). */
export function scoreInThread(
  artifacts: ArtifactSet,
  models: readonly string[] = SCAN_MODELS,
): Promise<Record<string, ModelScore>> {
  return inThread({ id: nextId++, kind: 'score', artifacts, models }) as Promise<Record<string, ModelScore>>;
}

/** scoreInThread, plus the set and its results as jsonb text for the scans row (ScoredToStore). */
export function scoreToStoreInThread(
  artifacts: ArtifactSet,
  models: readonly string[] = SCAN_MODELS,
): Promise<ScoredToStore> {
  return inThread({ id: nextId++, kind: 'scoreToStore', artifacts, models }) as Promise<ScoredToStore>;
}

/** pageRefs, off this thread's event loop: the page is parsed in the thread that will score it. */
export function pageRefsInThread(page: PageArtifact): Promise<PageRefs> {
  return inThread({ id: nextId++, kind: 'pageRefs', page }) as Promise<PageRefs>;
}

/** sitemapDigest, off this thread's event loop. */
export function sitemapDigestInThread(xml: string, keep: number): Promise<SitemapDigest> {
  return inThread({ id: nextId++, kind: 'sitemapDigest', xml, keep }) as Promise<SitemapDigest>;
}

/** crawlRefs (the audit crawl's links and identities of a page), off this thread's event loop. */
export function crawlRefsInThread(page: CrawledDocument, origin: string): Promise<CrawlRefs> {
  return inThread({ id: nextId++, kind: 'crawlRefs', page, origin }) as Promise<CrawlRefs>;
}

/** The gatherers' and the audit crawl's CPU-heavy reading in the scoring thread (GatherContext.cpuThread). */
export const scoringThread: CpuThread = {
  pageRefs: pageRefsInThread,
  sitemapDigest: sitemapDigestInThread,
  crawlRefs: crawlRefsInThread,
};

function inThread(request: ThreadRequest): Promise<unknown> {
  warmScoreThread();
  return new Promise((resolve, reject) => {
    const settle = { resolve, reject };
    const w = thread;
    if (!w) return doHere(request, settle);
    pending.set(request.id, { request, settle });
    w.ref();
    try {
      w.postMessage(request);
    } catch {
      // Not cloneable (never for plain JSON artifacts): done here.
      pending.delete(request.id);
      doHere(request, settle);
    }
  });
}

/** Ends the scoring thread (tests, shutdown); the next scan starts a new one. */
export async function closeScoreThread(): Promise<void> {
  const w = thread;
  thread = null;
  const held = [...pending.values()];
  pending.clear();
  for (const job of held) doHere(job.request, job.settle);
  await w?.terminate();
}
