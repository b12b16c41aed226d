import { parseArgs } from 'node:util';
import { startApi } from '../../api/server.ts';
import { createAccount } from '../../shared/accounts/accounts.ts';
import type { Config } from '../../shared/config.ts';
import { resolveDatabase } from '../../shared/db/connect.ts';
import { migrate } from '../../shared/db/migrate.ts';
import { createDb } from '../../shared/db/pool.ts';
import { createLogger } from '../../shared/logger.ts';
import { statusPageUrl } from '../../shared/monitoring/sites.ts';
import { startWorker } from '../../worker/runner.ts';
import { type CliIO, loadCliConfig } from '../context.ts';
import { installProcessHandlers } from '../process-handlers.ts';

type Part = 'api' | 'worker';

/** Runs until SIGTERM/SIGINT, then shuts down in order: API drains, worker finishes, Postgres stops. */
function untilSignal(io: CliIO, stops: (() => Promise<void>)[]): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = async (sig: string) => {
      if (stopping) return;
      stopping = true;
      io.err(`${sig} received: shutting down`);
      for (const stop of stops) await stop().catch((err) => io.err(`shutdown step failed: ${String(err)}`));
      resolve(0);
    };
    process.once('SIGTERM', () => void onSignal('SIGTERM'));
    process.once('SIGINT', () => void onSignal('SIGINT'));
  });
}

async function firstStartKeys(
  databaseUrl: string,
  cfg: Pick<Config, 'publicSiteUrl'>,
  io: CliIO,
): Promise<void> {
  const h = createDb(databaseUrl, { max: 1 });
  try {
    const any = await h.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (any) return;
    const a = await createAccount(h.db, {
      email: 'local-a@sightline.local',
      variant: 'A',
      tier: 'agent',
      plan: 'agency',
    });
    const b = await createAccount(h.db, {
      email: 'local-b@sightline.local',
      variant: 'B',
      tier: 'optimisation',
    });
    io.out('First start: created two local accounts. Their keys are shown once; store them now.');
    io.out(`  variant A (site audit, tier agent, plan agency): ${a.key.key}`);
    if (a.statusToken) io.out(`    its monitoring status page: ${statusPageUrl(cfg, a.statusToken)}`);
    io.out(`  variant B (agent readability, tier optimisation): ${b.key.key}`);
  } finally {
    await h.close();
  }
}

export async function serve(parts: Part[], args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args, options: { 'no-migrate': { type: 'boolean', default: false } } });
  const cfg = loadCliConfig();
  const log = createLogger(parts.length > 1 ? 'start' : parts[0]!, undefined, cfg.LOG_LEVEL);
  installProcessHandlers(log);
  // An embedded Postgres that exits (a crash, a full disk) is started again; the API answers 503
  // and the worker waits meanwhile.
  const db = await resolveDatabase(cfg, { restart: (line) => log.warn(line) });
  if (db.cluster?.owned)
    io.err(`embedded postgres on 127.0.0.1:${db.cluster.port} (data: ${db.cluster.dataDir})`);
  const stops: (() => Promise<void>)[] = [];
  try {
    if (!values['no-migrate']) await migrate(db.url, (m) => io.err(m));
    const both = parts.includes('api') && parts.includes('worker');
    if (both) await firstStartKeys(db.url, cfg, io);
    if (parts.includes('api')) {
      const api = await startApi(cfg, db.url);
      stops.push(api.close);
      io.out(
        `Sightline API listening on ${api.url}  (status: ${api.url}/api/v1/status, OpenAPI: ${api.url}/openapi.json)`,
      );
    }
    if (parts.includes('worker')) {
      // Started together with the API, the worker's metrics are already on the API's /metrics.
      const worker = await startWorker(cfg, db.url, both ? { metricsPort: null } : {});
      stops.push(worker.close);
      io.err(
        `worker running (concurrency ${cfg.WORKER_CONCURRENCY}${worker.metricsUrl ? `, metrics ${worker.metricsUrl}` : ''})`,
      );
    }
  } catch (err) {
    for (const stop of stops) await stop().catch(() => {});
    if (db.cluster?.owned) await db.cluster.stop();
    throw err;
  }
  if (db.cluster?.owned) stops.push(() => db.cluster!.stop());
  return untilSignal(io, stops);
}

export async function migrateCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const cfg = loadCliConfig();
  const db = await resolveDatabase(cfg);
  try {
    const applied = await migrate(db.url, (m) => io.err(m));
    if (values.json) io.out(JSON.stringify({ applied }));
    else io.out(applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
    return 0;
  } finally {
    if (db.cluster?.owned) await db.cluster.stop();
  }
}
