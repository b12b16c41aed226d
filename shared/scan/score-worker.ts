import { parentPort } from 'node:worker_threads';
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

const port = parentPort;
port?.on('message', ({ id, artifacts, models }: ScoreRequest) => {
  try {
    port.postMessage({ id, results: scoreArtifacts(artifacts, models) } satisfies ScoreReply);
  } catch {
    port.postMessage({ id, handBack: true } satisfies ScoreReply);
  }
});
