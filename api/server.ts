import type http from 'node:http';
import { watchCatalogue } from '../shared/agent-catalogue/watch.ts';
import type { Config } from '../shared/config.ts';
import { createDb } from '../shared/db/pool.ts';
import { EventListener } from '../shared/jobs/events.ts';
import { queueDepth } from '../shared/jobs/queue.ts';
import { createLogger } from '../shared/logger.ts';
import { registerQueueDepth } from '../shared/metrics.ts';
import type { Services } from '../shared/services.ts';
import { createApp } from './app.ts';
import { answerClientError } from './middlewares/errors.ts';

export interface ApiServer {
  url: string;
  port: number;
  services: Services;
  close: () => Promise<void>;
}

/** Starts the API on an already-migrated database. close() drains: no new connections, in-flight finish. */
export async function startApi(
  config: Config,
  databaseUrl: string,
  opts: { logDestination?: NodeJS.WritableStream } = {},
): Promise<ApiServer> {
  const log = createLogger('api', opts.logDestination, config.LOG_LEVEL);
  const handle = createDb(databaseUrl, { max: 20, application: 'sightline-api' });
  const events = new EventListener(databaseUrl, (msg, err) => log.warn({ err }, msg));
  await events.start();
  const catalogue = await watchCatalogue(handle.db, { intervalMs: config.AGENT_CATALOGUE_RELOAD_MS, log });
  const services: Services = { config, db: handle.db, events, log };
  registerQueueDepth(() => queueDepth(handle.db));
  const app = createApp(services);
  let server: http.Server;
  try {
    server = await new Promise((resolve, reject) => {
      const s = app.listen(config.PORT, config.HOST, () => resolve(s));
      s.once('error', reject);
    });
  } catch (err) {
    // A port in use: close what is open, or the LISTEN connection keeps a process alive that
    // serves nothing (and that a supervisor never restarts).
    catalogue.stop();
    await events.close();
    await handle.close();
    throw err;
  }
  server.keepAliveTimeout = 65_000; // longer than common load-balancer idle timeouts
  // Requests Node refuses before Koa sees them (431, malformed, timeouts) still get problem+json.
  server.on('clientError', answerClientError);
  const addr = server.address() as { port: number };
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;
  const url = `http://${host}:${addr.port}`;
  log.info({ url }, 'api listening');

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      log.info('api draining');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests still running after the grace period are cut, so shutdown stays bounded.
        setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, 10_000).unref();
      });
      catalogue.stop();
      await events.close();
      await handle.close();
      log.info('api stopped');
    })();
    return closing;
  };
  return { url, port: addr.port, services, close };
}
