import { Worker } from 'node:worker_threads';
import type { ArtifactSet } from './artifacts.ts';
import type { ModelScore } from './engine.ts';
import { SCAN_MODELS } from './scan-models.ts';
import type { ScoreReply, ScoreRequest } from './score-worker.ts';

// Scoring a page is tens of milliseconds of synchronous CPU (hundreds for a long page): run on a
// worker's event loop it delays heartbeats, job pickup and every other scan's I/O. So scans score
// in one long-lived worker thread per process (score-worker.ts), which works through the sets in
// the order they come. Scoring is pure, so the thread gives the same result as scoreArtifacts;
// if the thread cannot start or dies, the sets it held are scored here, in this thread, as before.
// The checks and models are loaded here only then: a process that starts scans loads them once,
// in the thread.

type Settle = { resolve: (r: Record<string, ModelScore>) => void; reject: (e: unknown) => void };

// Under tsx the sources are .ts; in dist/ (scripts/build.mjs compiles every .ts file) the entry is .js.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const ENTRY = new URL(FROM_SOURCE ? './score-worker.ts' : './score-worker.js', import.meta.url);

let thread: Worker | null = null;
let answered = false; // whether the current thread has answered once (it started)
let disabled = false; // a thread failed before answering anything: score in this thread from now on
let nextId = 1;
const pending = new Map<number, { request: ScoreRequest; settle: Settle }>();

function start(): Worker {
  let w: Worker;
  if (FROM_SOURCE) {
    // tsx may be registered in this thread only (bin/sightline.js does it through its API, which a
    // new thread does not inherit): the thread registers it itself, then loads its entry.
    const boot =
      `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
      `register();\nawait import(${JSON.stringify(ENTRY.href)});\n`;
    w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { execArgv: [] });
  } else {
    w = new Worker(ENTRY);
  }
  answered = false;
  w.on('message', (reply: ScoreReply) => {
    answered = true;
    const job = pending.get(reply.id);
    if (!job) return;
    pending.delete(reply.id);
    if ('results' in reply) job.settle.resolve(reply.results);
    else scoreHere(job.request, job.settle);
    if (pending.size === 0) w.unref();
  });
  const fail = () => {
    if (thread !== w) return;
    thread = null;
    if (!answered) disabled = true;
    // The sets it held are scored here, in the order they were sent.
    const held = [...pending.values()];
    pending.clear();
    for (const job of held) scoreHere(job.request, job.settle);
  };
  w.on('error', fail);
  w.on('exit', fail);
  // Idle, the thread keeps nobody alive (a CLI scan exits when done); busy, it holds the process.
  w.unref();
  return w;
}

/** scoreArtifacts in this thread, its modules loaded on first use (a one-shot scan, the fallback). */
export async function scoreInThisThread(
  artifacts: ArtifactSet,
  models: readonly string[] = SCAN_MODELS,
): Promise<Record<string, ModelScore>> {
  const { scoreArtifacts } = await import('./score.ts');
  return scoreArtifacts(artifacts, models);
}

function scoreHere(request: ScoreRequest, settle: Settle): void {
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
  warmScoreThread();
  return new Promise((resolve, reject) => {
    const request: ScoreRequest = { id: nextId++, artifacts, models };
    const settle = { resolve, reject };
    const w = thread;
    if (!w) return scoreHere(request, settle);
    pending.set(request.id, { request, settle });
    w.ref();
    try {
      w.postMessage(request);
    } catch {
      // Not cloneable (never for plain JSON artifacts): score it here.
      pending.delete(request.id);
      scoreHere(request, settle);
    }
  });
}

/** Ends the scoring thread (tests, shutdown); the next scan starts a new one. */
export async function closeScoreThread(): Promise<void> {
  const w = thread;
  thread = null;
  const held = [...pending.values()];
  pending.clear();
  for (const job of held) scoreHere(job.request, job.settle);
  await w?.terminate();
}
