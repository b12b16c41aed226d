import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { ArtifactSet } from '../shared/scan-engine/artifacts.ts';
import { scoreArtifacts } from '../shared/scan-engine/score.ts';

// The bench's scoring timer (bench/scans.ts starts it as a worker thread with the scoring
// thread's resource limits): scores every set `warmUpRounds` times untimed, as a worker's
// long-lived scoring thread has long done, then `rounds` times, and posts each round's seconds.

const { artifacts, warmUpRounds, rounds } = workerData as {
  artifacts: ArtifactSet[];
  warmUpRounds: number;
  rounds: number;
};
for (let i = 0; i < warmUpRounds; i++) for (const a of artifacts) scoreArtifacts(a);
const seconds: number[] = [];
for (let i = 0; i < rounds; i++) {
  const t0 = performance.now();
  for (const a of artifacts) scoreArtifacts(a);
  seconds.push((performance.now() - t0) / 1000);
}
parentPort?.postMessage(seconds);
