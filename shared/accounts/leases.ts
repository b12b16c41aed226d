import { rateLimitLeases } from '../metrics.ts';

// Leases of a key's calls (issue 17, sql/022). A busy key whose hour has plenty of room takes, in
// its admission statement, more calls than it has in hand: what its calls in this process are
// likely to need for the rest of that database second. Its next calls in that second are
// answered from the lease with no statement each; what is left when the second ends goes back
// to the second it was counted in. The count stays exact: every call is counted in the second it
// was made, as a statement per call would count it, and nothing is counted that was not made,
// once the lease is given back.
//
// What it costs, and why leases are only for keys far from their limit: other processes see a
// lease's unused calls as spent until it ends (their X-RateLimit-Remaining is lower by at most
// one second's calls), a key revoked while it holds a lease keeps its leased calls for the rest of
// that second, and calls leased by a process that dies without giving them back stay counted for
// the hour. Near the limit every call is counted by its own statement, so no caller is refused
// while another process holds room it will not use.

/** A lease is taken only while this many of the key's calls stay free in its hour after it. */
export const LEASE_FLOOR = 10_000;
/** A lease takes at most this share of the calls free above the floor. */
const LEASE_SHARE = 8;
/** A lease takes at most this many calls. */
export const LEASE_MAX = 50_000;
/** A lease ends this long before the local clock leaves its second: room for clock skew. */
const SECOND_MARGIN_MS = 50;
const KEYS_MAX = 1024;

export interface Leased<T> {
  /** What the statement answered for the key (its row, its account). */
  value: T;
  limit: number;
  /** The key's count after the calls answered so far (the hour's count as this process knows it). */
  count: number;
  reset: number;
}

interface Lease<T> extends Leased<T> {
  id: string;
  bucket: string;
  second: number;
  left: number;
  until: number;
  /** Calls answered from it, added to the metric when it ends (not a labelled increment per call). */
  answered: number;
}

interface KeyUse {
  /** Local epoch second, and this process's calls of the key in it and in the one before. */
  second: number;
  calls: number;
  before: number;
  /** Calls the key's hour had free after the last statement for it. */
  free: number;
}

export type GiveBack = (back: { bucket: string; second: number; n: number }[]) => Promise<unknown>;

export class KeyLeases<T> {
  private readonly leases = new Map<string, Lease<T>>();
  private readonly uses = new Map<string, KeyUse>();
  private pending: { bucket: string; second: number; n: number }[] = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly giveBack: GiveBack) {}

  /** Counts a call of the key (by its hash as a binary string) for the lease size. */
  noteCall(id: string, now = Date.now()): void {
    const second = Math.floor(now / 1000);
    let use = this.uses.get(id);
    if (!use) {
      if (this.uses.size >= KEYS_MAX) this.uses.delete(this.uses.keys().next().value as string);
      use = { second, calls: 0, before: 0, free: 0 };
      this.uses.set(id, use);
    }
    if (use.second !== second) {
      use.before = use.second === second - 1 ? use.calls : 0;
      use.second = second;
      use.calls = 0;
    }
    use.calls++;
  }

  /**
   * One call from the key's lease, or undefined when it has none left in this second. The lease
   * returned has counted the call: its `count` is the key's count after it.
   */
  take(id: string, now = Date.now()): Readonly<Leased<T>> | undefined {
    const lease = this.leases.get(id);
    if (!lease || lease.left === 0 || now >= lease.until) return undefined;
    lease.left--;
    lease.count++;
    lease.answered++;
    return lease;
  }

  /** Calls to take beyond those in hand, for the key's next statement (0: no lease). */
  extra(id: string, now = Date.now()): number {
    const use = this.uses.get(id);
    if (!use || use.free <= LEASE_FLOOR) return 0;
    // Too late in the second: the lease would end before its first call.
    if (1000 - (now % 1000) <= 2 * SECOND_MARGIN_MS) return 0;
    const held = this.leases.get(id);
    if (held && held.left > 0 && now < held.until) return 0; // calls queued before it was granted
    // The rest of this second at the pace of the last full one (or this one, if faster).
    const pace = Math.max(use.before, (use.calls * 1000) / Math.max(100, now % 1000));
    const want = Math.floor((pace * (1000 - (now % 1000))) / 1000);
    const room = Math.floor((use.free - LEASE_FLOOR) / LEASE_SHARE);
    const n = Math.min(want, room, LEASE_MAX);
    return n >= 2 ? n : 0;
  }

  /**
   * A statement's answer for a key: `free` calls left in its hour after it, and `left` of the
   * calls it granted not used by calls in hand, counted in `second` (epoch seconds).
   */
  settle(
    id: string,
    granted: { value: T; bucket: string; limit: number; count: number; reset: number; free: number },
    left: number,
    second: number | null,
    now = Date.now(),
  ): void {
    const use = this.uses.get(id);
    if (use) use.free = granted.free;
    if (left <= 0 || second === null) return;
    const old = this.leases.get(id);
    if (old) this.end(old);
    const until = Math.min((second + 1) * 1000 - SECOND_MARGIN_MS, now + 1000);
    const lease: Lease<T> = { ...granted, id, second, left, until, answered: 0 };
    if (until <= now) {
      this.end(lease);
      return;
    }
    this.leases.set(id, lease);
    setTimeout(() => this.end(lease), until - now).unref();
  }

  /** Ends every lease now, giving back what is unused (at shutdown). */
  async close(): Promise<void> {
    for (const lease of [...this.leases.values()]) this.end(lease);
    await this.flush();
  }

  private end(lease: Lease<T>): void {
    if (this.leases.get(lease.id) === lease) this.leases.delete(lease.id);
    if (lease.answered > 0) rateLimitLeases.inc({ outcome: 'answered' }, lease.answered);
    lease.answered = 0;
    if (lease.left === 0) return;
    this.pending.push({ bucket: lease.bucket, second: lease.second, n: lease.left });
    lease.left = 0;
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.send());
  }

  private async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async send(): Promise<void> {
    const back = this.pending;
    this.pending = [];
    const n = back.reduce((sum, b) => sum + b.n, 0);
    try {
      await this.giveBack(back);
      rateLimitLeases.inc({ outcome: 'given_back' }, n);
    } catch {
      // They stay counted for the hour: the key loses them, no caller gets more than its limit.
      rateLimitLeases.inc({ outcome: 'give_back_failed' }, n);
    } finally {
      this.flushing = undefined;
      if (this.pending.length) this.flushing = this.send();
    }
  }
}
