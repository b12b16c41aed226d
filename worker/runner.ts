import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Logger as GwLogger,
  parseCrontab,
  type Runner,
  run,
  type TaskList,
  type WorkerEvents,
} from 'graphile-worker';
import pg from 'pg';
import type { Config } from '../shared/config.ts';
import { createDb, guardPool } from '../shared/db/pool.ts';
import { queueDepth } from '../shared/jobs/queue.ts';
import { createLogger, type Logger } from '../shared/logger.ts';
import { registerQueueDepth, registry } from '../shared/metrics.ts';
import { browserResources, closeBrowserResources } from './browser/resources.ts';
import { Heartbeat, reapDeadWorkers } from './heartbeat.ts';
import { toGraphileTask } from './task.ts';
import { tasks } from './tasks/index.ts';

const CRONTAB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'crontab');

export interface WorkerProcess {
  runner: Runner;
  metricsUrl?: string;
  /** Stops taking jobs, lets running ones finish within the bound, then releases the rest. */
  close: () => Promise<void>;
}

function graphileLogger(log: Logger): GwLogger {
  return new GwLogger((scope) => (level, message, meta) => {
    const l =
      level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    log[l]({ scope, ...(meta ?? {}) }, message);
  });
}

export async function startWorker(
  config: Config,
  databaseUrl: string,
  opts: { metricsPort?: number | null; crontab?: string | null } = {},
): Promise<WorkerProcess> {
  const log = createLogger('worker', undefined, config.LOG_LEVEL);
  const handle = createDb(databaseUrl, {
    max: config.WORKER_CONCURRENCY + 4,
    application: 'sightline-worker',
  });
  const pgPool = new pg.Pool({
    connectionString: databaseUrl,
    max: config.WORKER_CONCURRENCY + 2,
    application_name: 'sightline-graphile',
  });
  guardPool(pgPool, (err) => log.warn({ err }, 'graphile connection lost'));
  const shutdown = new AbortController();
  const taskList: TaskList = {};
  for (const def of tasks)
    taskList[def.name] = toGraphileTask(def, {
      db: handle.db,
      config,
      log,
      shutdown: shutdown.signal,
      browser: () => browserResources(config),
    });

  // A worker that starts after a crash frees its predecessors' jobs at once.
  const freed = await reapDeadWorkers(handle.db).catch(() => []);
  if (freed.length) log.warn({ workers: freed }, 'released jobs of dead workers at start');

  const heartbeat = new Heartbeat(handle.db);
  const crontab = opts.crontab === undefined ? fs.readFileSync(CRONTAB, 'utf8') : opts.crontab;
  // graphile-worker emits worker:create inside run(): the listener must be on the emitter first.
  const events: WorkerEvents = new EventEmitter();
  events.on('worker:create', ({ worker }) => {
    void heartbeat.add(worker.workerId).catch((err) => log.warn({ err }, 'heartbeat failed'));
  });
  const runner = await run({
    pgPool,
    concurrency: config.WORKER_CONCURRENCY,
    taskList,
    parsedCronItems: crontab ? parseCrontab(crontab) : [],
    noHandleSignals: true,
    pollInterval: 2000,
    logger: graphileLogger(log),
    events,
  });
  registerQueueDepth(() => queueDepth(handle.db));

  let metricsServer: http.Server | undefined;
  let metricsUrl: string | undefined;
  const metricsPort = opts.metricsPort === undefined ? config.WORKER_METRICS_PORT : opts.metricsPort;
  if (metricsPort !== null) {
    metricsServer = http.createServer(async (req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
    });
    await new Promise<void>((resolve) => metricsServer!.listen(metricsPort, config.HOST, () => resolve()));
    metricsUrl = `http://${config.HOST}:${(metricsServer.address() as { port: number }).port}/metrics`;
  }
  log.info(
    { concurrency: config.WORKER_CONCURRENCY, tasks: Object.keys(taskList), metricsUrl },
    'worker started',
  );

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      log.info({ timeoutMs: config.WORKER_SHUTDOWN_TIMEOUT_MS }, 'worker stopping: finishing running jobs');
      const stopped = runner.stop().then(() => true);
      const inTime = await Promise.race([
        stopped,
        new Promise<false>((r) => setTimeout(() => r(false), config.WORKER_SHUTDOWN_TIMEOUT_MS).unref()),
      ]);
      if (!inTime) {
        // Past the bound: cancel running work; graphile-worker fails those attempts and they run again.
        log.warn('shutdown bound passed: aborting running jobs');
        shutdown.abort(new Error('worker shutting down'));
        await Promise.race([stopped, new Promise((r) => setTimeout(r, 5000).unref())]);
      }
      // runner.promise settles once graphile-worker has released its LISTEN client too.
      await Promise.race([runner.promise.catch(() => {}), new Promise((r) => setTimeout(r, 5000).unref())]);
      await closeBrowserResources().catch((err) => log.warn({ err }, 'closing the browser failed'));
      await heartbeat.stop();
      metricsServer?.close();
      await pgPool.end().catch(() => {});
      await handle.close();
      log.info('worker stopped');
    })();
    return closing;
  };
  return { runner, metricsUrl, close };
}
