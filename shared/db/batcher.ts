// Group commit for hot single-row statements: calls that arrive while earlier batches are at the
// database wait and go together in the next statement. An idle process sends each call at once
// (no timer, no added latency); a busy one sends one statement for many calls, which is what
// saves the database's per-statement and per-commit cost.

export interface BatcherOptions {
  /**
   * Batches at the database at once; the rest of the calls wait for one to return. One by
   * default: batches of one key queue on its lock, so more in flight only makes them smaller
   * and the calls slower (docs/benchmarks.md).
   */
  maxInFlight?: number;
  /** Calls in one statement at most. */
  maxBatch?: number;
}

export class Batcher<K, V> {
  private queue: { key: K; resolve: (v: V) => void; reject: (err: unknown) => void }[] = [];
  private inFlight = 0;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;

  /** `run` answers a batch of keys with one value per key, in order. */
  constructor(
    private readonly run: (keys: K[]) => Promise<V[]>,
    options: BatcherOptions = {},
  ) {
    this.maxInFlight = options.maxInFlight ?? 1;
    this.maxBatch = options.maxBatch ?? 200;
  }

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      // The next batch goes to the database before this one's callers carry on: their answers
      // are then written while the database works on it, instead of the database waiting idle.
      const next = () => {
        this.inFlight--;
        this.flush();
      };
      this.run(batch.map((b) => b.key)).then(
        (values) => {
          next();
          for (let i = 0; i < batch.length; i++) batch[i]!.resolve(values[i] as V);
        },
        (err) => {
          next();
          for (const b of batch) b.reject(err);
        },
      );
    }
  }
}
