import { Writable } from 'node:stream';
import { type ApiServer, startApi } from '../../api/server.ts';
import { createAccount } from '../../shared/accounts/accounts.ts';
import { loadConfig } from '../../shared/config.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import type { ApiTier, Variant } from '../../shared/db/tables/accounts.ts';
import type { Plan } from '../../shared/db/tables/subscriptions.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export interface TestApi {
  url: string;
  api: ApiServer;
  database: TestDatabase;
  handle: Db;
  logs: string[];
  newKey: (variant: Variant, tier: ApiTier, opts?: { plan?: Plan; rateLimit?: number }) => Promise<string>;
  close: () => Promise<void>;
}

let seq = 0;

/** A real API process-in-a-test on its own cloned database, with its log lines captured. */
export async function startTestApi(env: Record<string, string> = {}): Promise<TestApi> {
  const database = await createTestDatabase();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const config = loadConfig({ ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env });
  const api = await startApi(config, database.url, { logDestination: sink });
  const handle = createDb(database.url, { max: 2 });
  return {
    url: api.url,
    api,
    database,
    handle,
    logs,
    async newKey(variant, tier, opts = {}) {
      const { key } = await createAccount(handle.db, {
        email: `user${++seq}-${Date.now()}@example.test`,
        variant,
        tier,
        plan: opts.plan ?? null,
        rateLimit: opts.rateLimit ?? null,
      });
      return key.key;
    },
    async close() {
      await api.close();
      await handle.close();
      await database.drop();
    },
  };
}

export async function call(
  base: string,
  path: string,
  opts: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const res = await fetch(base + path, {
    method: opts.method ?? 'GET',
    headers: {
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(opts.headers ?? {}),
    },
    body:
      opts.body === undefined
        ? undefined
        : typeof opts.body === 'string'
          ? opts.body
          : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}
