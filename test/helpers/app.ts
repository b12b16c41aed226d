import type http from 'node:http';
import type { Writable } from 'node:stream';
import { createApp } from '../../api/app.ts';
import type { RouteDef } from '../../api/route.ts';
import { loadConfig } from '../../shared/config.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { EventListener } from '../../shared/jobs/events.ts';
import { createLogger } from '../../shared/logger.ts';
import { createTestDatabase } from './db.ts';

// The Koa app alone, with the routes a test declares, on its own database: for tests of the
// request path itself (middleware, error pages, log lines) rather than of a capability.

export interface TestApp {
  base: string;
  handle: Db;
  close(): Promise<void>;
}

export async function startTestApp(
  routes: RouteDef[],
  opts: { env?: Record<string, string>; log?: { sink: Writable; level: 'info' | 'debug' } } = {},
): Promise<TestApp> {
  const db = await createTestDatabase();
  const handle = createDb(db.url);
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', ...opts.env });
  const events = new EventListener(db.url);
  const log = opts.log ? createLogger('t', opts.log.sink, opts.log.level) : createLogger('t');
  const server: http.Server = createApp({ config, db: handle.db, events, log }, routes).listen(
    0,
    '127.0.0.1',
  );
  await new Promise((r) => server.once('listening', r));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    handle,
    async close() {
      server.close();
      await events.close();
      await handle.close();
      await db.drop();
    },
  };
}
