import { setPriority } from 'node:os';
import { isMainThread, parentPort } from 'node:worker_threads';
import type { ArtifactSet } from './artifacts.ts';
import { scoreArtifacts } from './score.ts';

// The scoring thread's entry (started by score-thread.ts): scores the artifact sets posted to it,
// one at a time, and answers each by its id. A set it cannot score or answer (a check's error
// escaping, a result that does not clone) is handed back, so the caller scores it in its own
// thread and gets the same result or the same error it always would.

export interface ScoreRequest {
  id: number;
  artifacts: ArtifactSet;
  models: readonly string[];
}

export type ScoreReply =
  | { id: number; results: ReturnType<typeof scoreArtifacts> }
  | { id: number; handBack: true };

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
port?.on('message', ({ id, artifacts, models }: ScoreRequest) => {
  try {
    port.postMessage({ id, results: scoreArtifacts(artifacts, models) } satisfies ScoreReply);
  } catch {
    port.postMessage({ id, handBack: true } satisfies ScoreReply);
  }
});
