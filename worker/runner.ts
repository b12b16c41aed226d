import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger as GwLogger, parseCrontab, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import { watchCatalogue } from '../shared/agent-catalogue/watch.ts';
import type { Config } from '../shared/config.ts';
import { createDb, endPool, guardPool } from '../shared/db/pool.ts';
import { queueDepth } from '../shared/jobs/queue.ts';
import { createLogger, type Logger } from '../shared/logger.ts';
import { registerQueueDepth, registry } from '../shared/metrics.ts';
import { browserResources, closeBrowserResources } from './browser/resources.ts';
import { Heartbeat, reapDeadWorkers, releaseDeadWorker } from './heartbeat.ts';
import { MemoryBudget } from './memory-budget.ts';
import { Runners } from './runners.ts';
import { toGraphileTask } from './task.ts';
import { tasks } from './tasks/index.ts';

const CRONTAB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'crontab');

export interface WorkerProcess {
  /** graphile-worker ids of the internal workers alive now (WORKER_CONCURRENCY when healthy). */
  liveWorkers: () => string[];
  metricsUrl?: string;
  /** Stops taking jobs, lets running ones finish within the bound, then releases the rest. */
  close: () => Promise<void>;
}

/**
 * graphile-worker's own lines: its per-job dumps ("Completed task …" with the whole job row, and
 * "Failed task …" with the stack) go to debug, as do its other info lines; our task wrapper
 * writes the one line per job. Its other warnings and errors keep their level.
 */
export function graphileLogger(log: Logger): GwLogger {
  return new GwLogger((scope) => (level, message, meta) => {
    const perJob = meta?.success === true || meta?.failure === true;
    const l = perJob ? 'debug' : level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    log[l]({ scope, ...(meta ?? {}) }, message);
  });
}

export async function startWorker(
  config: Config,
  databaseUrl: string,
  opts: { metricsPort?: number | null; crontab?: string | null; logDestination?: NodeJS.WritableStream } = {},
): Promise<WorkerProcess> {
  const log = createLogger('worker', opts.logDestination, config.LOG_LEVEL);
  const handle = createDb(databaseUrl, {
    max: config.WORKER_CONCURRENCY + 4,
    application: 'sightline-worker',
  });
  // graphile-worker's: one per running job, a LISTEN client for the job runner and one for the cron.
  const pgPool = new pg.Pool({
    connectionString: databaseUrl,
    max: config.WORKER_CONCURRENCY + 3,
    application_name: 'sightline-graphile',
  });
  guardPool(pgPool, (err) => log.warn({ err }, 'graphile connection lost'));
  const shutdown = new AbortController();
  const memory = new MemoryBudget(config.WORKER_MEMORY_BUDGET_MB, log);
  const taskList: TaskList = Object.fromEntries(
    tasks.map((def) => [
      def.name,
      toGraphileTask(def, {
        db: handle.db,
        config,
        log,
        shutdown: shutdown.signal,
        browser: () => browserResources(config),
        memory,
      }),
    ]),
  );

  // A worker that starts after a crash frees its predecessors' jobs at once.
  const freed = await reapDeadWorkers(handle.db).catch(() => []);
  if (freed.length) log.warn({ workers: freed }, 'released jobs of dead workers at start');

  // The agent catalogue the tasks classify with (relabelling, log imports), kept current.
  const catalogue = await watchCatalogue(handle.db, { intervalMs: config.AGENT_CATALOGUE_RELOAD_MS, log });
  const heartbeat = new Heartbeat(handle.db);
  const crontab = opts.crontab === undefined ? fs.readFileSync(CRONTAB, 'utf8') : opts.crontab;
  // graphile-worker emits worker:create inside run(): the listener must be on the emitter first.
  const events: WorkerEvents = new EventEmitter();
  const runners = new Runners(
    { pgPool, taskList, noHandleSignals: true, pollInterval: 2000, logger: graphileLogger(log), events },
    log,
  );
  events.on('worker:create', ({ worker }) => {
    void heartbeat.add(worker.workerId).catch((err) => log.warn({ err }, 'heartbeat failed'));
  });
  // graphile-worker 0.16 ends an internal worker for good when it cannot record a job's outcome
  // (the database went away at that moment) and never replaces it: its job stays locked and the
  // process runs one job fewer. Liveness means the job runner is alive, so: stop beating for the
  // dead worker at once, free its job as soon as the database answers, and start a stand-in.
  events.on('worker:stop', ({ worker, error }) => {
    if (runners.stopping) return;
    const deadWorker = worker.workerId;
    log.error({ err: error, workerId: deadWorker }, 'graphile-worker internal worker died; replacing it');
    void heartbeat.remove(deadWorker).catch(() => {});
    const release = async () => {
      await releaseDeadWorker(handle.db, deadWorker);
      await heartbeat.remove(deadWorker); // its row, if the database was away when it died
    };
    void runners.standIn(release).then((started) => {
      if (started) log.warn({ deadWorker }, 'released the dead worker’s job and started a replacement');
    });
  });
  await runners.keep('job runner', { concurrency: config.WORKER_CONCURRENCY, parsedCronItems: [] });
  if (crontab) await runners.keep('cron', { concurrency: 0, parsedCronItems: parseCrontab(crontab) });
  registerQueueDepth(() => queueDepth(handle.db));

  const metricsPort = opts.metricsPort === undefined ? config.WORKER_METRICS_PORT : opts.metricsPort;
  const metrics = metricsPort === null ? undefined : await serveMetrics(metricsPort, config.HOST, log);
  const metricsUrl = metrics?.url;
  log.info(
    { concurrency: config.WORKER_CONCURRENCY, tasks: Object.keys(taskList), metricsUrl },
    'worker started',
  );

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      log.info({ timeoutMs: config.WORKER_SHUTDOWN_TIMEOUT_MS }, 'worker stopping: finishing running jobs');
      await stopRunners(runners, config.WORKER_SHUTDOWN_TIMEOUT_MS, shutdown, log);
      await closeBrowserResources().catch((err) => log.warn({ err }, 'closing the browser failed'));
      await heartbeat.stop();
      catalogue.stop();
      metrics?.server.close();
      await endPool(pgPool).catch(() => {});
      await handle.close();
      log.info('worker stopped');
    })();
    return closing;
  };
  return { metricsUrl, close, liveWorkers: () => heartbeat.workerIds };
}

/** Lets running jobs finish within the bound, then aborts them (graphile-worker runs them again). */
async function stopRunners(runners: Runners, boundMs: number, shutdown: AbortController, log: Logger) {
  const stopped = runners.stop().then(() => true);
  const inTime = await Promise.race([
    stopped,
    new Promise<false>((r) => setTimeout(() => r(false), boundMs).unref()),
  ]);
  if (!inTime) {
    log.warn('shutdown bound passed: aborting running jobs');
    shutdown.abort(new Error('worker shutting down'));
    await Promise.race([stopped, new Promise((r) => setTimeout(r, 5000).unref())]);
  }
  // Runners settle once graphile-worker has released their LISTEN clients too.
  await Promise.race([runners.settled(), new Promise((r) => setTimeout(r, 5000).unref())]);
}

/** The worker's /metrics. A port someone holds is a warning, not a failure (null then). */
async function serveMetrics(
  port: number,
  host: string,
  log: Logger,
): Promise<{ server: http.Server; url: string } | undefined> {
  const server = http.createServer(async (req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', (err) => {
      // A second worker on one host (Procfile scaled) meets the first one's port: it keeps
      // working, without its own /metrics, and says how to give it one.
      log.warn(
        { err, port },
        'worker /metrics not served: its port is taken (give each worker on a host its own WORKER_METRICS_PORT, or 0 for any free port)',
      );
      resolve(false);
    });
    server.listen(port, host, () => resolve(true));
  });
  if (!listening) return undefined;
  return { server, url: `http://${host}:${(server.address() as { port: number }).port}/metrics` };
}
