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

  async start(): Promise<void> {
    this.connecting ??= this.connect();
    await this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'sightline-listen' });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      const set = this.waiters.get(msg.payload);
      if (set) for (const wake of set) wake();
    });
    client.on('error', (err) => {
      this.log('listen connection lost; reconnecting', err);
      this.client = undefined;
      this.connecting = undefined;
      // Waiters re-check the database on timeout anyway; reconnect in the background.
      if (!this.closing) setTimeout(() => this.start().catch(() => {}), 1000).unref();
      // Wake everyone so they re-check state instead of sleeping through a lost signal.
      for (const set of this.waiters.values()) for (const wake of set) wake();
    });
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
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
    await this.start().catch(() => {});
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
    const c = this.client;
    this.client = undefined;
    if (c) await c.end().catch(() => {});
  }
}
