import { NetError } from './net-error.ts';

// Per-site politeness for one scan or audit: at most `perHost` requests in flight to one host
// (host:port) at a time. A quick scan starts every gatherer and the AI-agent fetches together;
// without this, a small server (a listen backlog of 5) drops connections and each scan pays
// about a second of TCP retries. Waiting for a slot counts against the request's own deadline.

/** Requests in flight to one site during a scan or an audit. */
export const MAX_REQUESTS_PER_SITE = 4;

export class HostSlots {
  private readonly busy = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  /** Most requests seen in flight to one host at once (tests, logs). */
  peak = 0;

  constructor(readonly perHost = MAX_REQUESTS_PER_SITE) {}

  /** Resolves with a release function once a slot for `host` is held. */
  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
    const n = this.busy.get(host) ?? 0;
    if (n < this.perHost) {
      this.busy.set(host, n + 1);
      this.peak = Math.max(this.peak, n + 1);
    } else {
      // A releasing request hands its slot straight to the first waiter: the count never dips,
      // so no newcomer can slip in between.
      await new Promise<void>((resolve, reject) => {
        const q = this.waiting.get(host) ?? [];
        this.waiting.set(host, q);
        const onAbort = () => {
          const i = q.indexOf(go);
          if (i >= 0) q.splice(i, 1);
          reject(new NetError('aborted', 'The request was aborted while waiting for a connection slot'));
        };
        const go = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        q.push(go);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.get(host)?.shift();
      if (next) return next();
      const left = (this.busy.get(host) ?? 1) - 1;
      if (left === 0) {
        this.busy.delete(host);
        this.waiting.delete(host);
      } else this.busy.set(host, left);
    };
  }
}
