// Retention work deletes (or updates) in batches, so one run never holds a long lock or a huge
// transaction: `step` handles at most `size` rows and says how many it did; repeat until short.

export const RETENTION_BATCH = 1000;

export async function inBatches(
  step: (size: number) => Promise<number>,
  opts: { size?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const size = opts.size ?? RETENTION_BATCH;
  let total = 0;
  for (;;) {
    if (opts.signal?.aborted) break;
    const n = await step(size);
    total += n;
    if (n < size) break;
  }
  return total;
}
