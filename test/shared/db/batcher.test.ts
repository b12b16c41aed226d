import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Batcher } from '../../../shared/db/batcher.ts';

// The group-commit batcher behind keyed admissions (shared/db/batcher.ts): an idle caller is sent
// at once, callers arriving while batches are out wait and go together, in order.

/** A run function whose batches the test releases by hand. */
function controlledRun() {
  const batches: { keys: number[]; release: (err?: Error) => void }[] = [];
  const run = (keys: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({
        keys,
        release: (err) => (err ? reject(err) : resolve(keys.map((k) => `v${k}`))),
      });
    });
  return { batches, run };
}

describe('Batcher', () => {
  it('sends an idle call alone and at once, then gathers the calls that wait', async () => {
    const { batches, run } = controlledRun();
    const batcher = new Batcher(run, { maxInFlight: 1 });
    const first = batcher.load(1);
    assert.deepEqual(
      batches.map((b) => b.keys),
      [[1]],
      'no timer: the first call is at the database straight away',
    );
    const waiting = [batcher.load(2), batcher.load(3), batcher.load(4)];
    assert.equal(batches.length, 1, 'one batch in flight at most');
    batches[0]!.release();
    assert.equal(await first, 'v1');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(batches[1]!.keys, [2, 3, 4], 'the waiting calls go together, in arrival order');
    batches[1]!.release();
    assert.deepEqual(await Promise.all(waiting), ['v2', 'v3', 'v4'], 'each caller gets its own value');
  });

  it('keeps up to maxInFlight batches out and caps their size', async () => {
    const { batches, run } = controlledRun();
    const batcher = new Batcher(run, { maxInFlight: 2, maxBatch: 2 });
    const all = [1, 2, 3, 4, 5, 6].map((k) => batcher.load(k));
    assert.deepEqual(
      batches.map((b) => b.keys),
      [[1], [2]],
    );
    batches[0]!.release();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(batches[2]!.keys, [3, 4], 'no more than maxBatch calls in one statement');
    batches[1]!.release();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(batches[3]!.keys, [5, 6]);
    batches[2]!.release();
    batches[3]!.release();
    assert.deepEqual(await Promise.all(all), ['v1', 'v2', 'v3', 'v4', 'v5', 'v6']);
  });

  it('fails every call of a failed batch, and goes on with the next', async () => {
    const { batches, run } = controlledRun();
    const batcher = new Batcher(run, { maxInFlight: 1 });
    const first = batcher.load(1);
    const second = [batcher.load(2), batcher.load(3)];
    batches[0]!.release();
    await first;
    await new Promise((r) => setImmediate(r));
    batches[1]!.release(new Error('connection lost'));
    for (const p of second) await assert.rejects(p, /connection lost/);
    const later = batcher.load(4);
    assert.deepEqual(batches[2]!.keys, [4], 'a failure does not stall the batcher');
    batches[2]!.release();
    assert.equal(await later, 'v4');
  });
});
