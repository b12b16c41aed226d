import { type Kysely, sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from '../db/database.ts';

// Completion signals: a task that finishes something an API request may be waiting on calls
// notify(topic) (inside its transaction, so the signal fires only on commit). Each API process
// holds ONE listening connection and fans the signals out to waiting requests.

export const CHANNEL = 'sightline_events';

export async function notify(db: Kysely<Database> | Transaction<Database>, topic: string): Promise<void> {
  await sql`select pg_notify(${CHANNEL}, ${topic})`.execute(db);
}

export class EventListener {
  private client: pg.Client | undefined;
  private waiters = new Map<string, Set<() => void>>();
  private closing = false;
  private connecting: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly log: (msg: string, err?: unknown) => void = () => {},
  ) {}

  /** Whether the LISTEN connection is up (it reconnects by itself after a loss). */
  get connected(): boolean {
    return this.client !== undefined;
  }

  async start(): Promise<void> {
    this.connecting ??= this.connect().catch((err) => {
      this.connecting = undefined; // the next start() tries again
      throw err;
    });
    await this.connecting;
  }

  private retries = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  /** Reconnects in the background, backing off to one try every 5 s, until it works or we close. */
  private reconnectLater(): void {
    if (this.closing || this.retryTimer) return;
    const delay = Math.min(250 * 2 ** this.retries++, 5000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.start().then(
        () => {
          this.retries = 0;
          // Signals sent while we were away are lost: wake everyone to re-check.
          this.wakeAll();
        },
        (err) => {
          this.log('listen connection still down; retrying', err);
          this.reconnectLater();
        },
      );
    }, delay);
    this.retryTimer.unref();
  }

  private wakeAll(): void {
    for (const set of this.waiters.values()) for (const wake of set) wake();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'sightline-listen' });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      const set = this.waiters.get(msg.payload);
      if (set) for (const wake of set) wake();
    });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) {
        this.client = undefined;
        this.connecting = undefined;
      }
      client.end().catch(() => {});
      if (this.closing) return;
      this.log('listen connection lost; reconnecting', err);
      // Waiters re-check the database on timeout anyway; reconnect in the background, and wake
      // everyone so they re-check state instead of sleeping through a lost signal.
      this.reconnectLater();
      this.wakeAll();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (err) {
      lost = true; // a failed attempt: start() reports it, the caller decides about retrying
      client.end().catch(() => {});
      throw err;
    }
    if (this.closing) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
  }

  /**
   * Resolves with check()'s first non-undefined answer, re-checking after each signal for `topic`,
   * or resolves undefined after timeoutMs. Subscribes before the first check, so no signal is missed.
   */
  async waitFor<T>(
    topic: string,
    check: () => Promise<T | undefined>,
    timeoutMs: number,
  ): Promise<T | undefined> {
    await this.start().catch(() => this.reconnectLater());
    let wake: () => void = () => {};
    let signalled = false;
    const onSignal = () => {
      signalled = true;
      wake();
    };
    const set = this.waiters.get(topic) ?? new Set<() => void>();
    this.waiters.set(topic, set);
    set.add(onSignal);
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        signalled = false;
        const v = await check();
        if (v !== undefined) return v;
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        if (signalled) continue;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 5000)); // periodic re-check as a safety net
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    } finally {
      set.delete(onSignal);
      if (set.size === 0) this.waiters.delete(topic);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const c = this.client;
    this.client = undefined;
    if (c) await c.end().catch(() => {});
  }
}
