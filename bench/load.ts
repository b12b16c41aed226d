import autocannon from 'autocannon';

// The load generator: autocannon in one worker thread, so the requests are fired from another core
// than the server under test (which runs on this process's main thread). Runs are bounded by time.

export interface LoadOptions {
  url: string;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
  /** Each connection cycles through these instead of requesting `url` (e.g. to spread calls over keys). */
  requests?: { path: string; headers?: Record<string, string> }[];
}

export interface LoadResult {
  rps: number;
  /** Latency percentiles in ms (autocannon records whole milliseconds). */
  p50: number;
  p99: number;
  requests: number;
  /** Responses outside 2xx plus connection errors and timeouts: any of these spoils the run. */
  failures: number;
}

export async function load(opts: LoadOptions): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    requests: opts.requests?.map((r) => ({ method: 'GET', ...r })),
    workers: 1,
    timeout: 10,
  });
  return {
    rps: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r['2xx'],
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

/** A short discarded run: connections, JIT and the database's caches get warm first. */
export async function warmUp(opts: Omit<LoadOptions, 'seconds'>): Promise<void> {
  await load({ ...opts, seconds: 2 });
}
