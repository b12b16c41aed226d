import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { type ApiServer, startApi } from '../api/server.ts';
import { createAccount } from '../shared/accounts/accounts.ts';
import { type Config, loadConfig, resetConfig } from '../shared/config.ts';
import { ensureDatabase } from '../shared/db/connect.ts';
import type { Database } from '../shared/db/database.ts';
import { type EmbeddedCluster, startEmbedded } from '../shared/db/embedded.ts';
import { migrate } from '../shared/db/migrate.ts';
import { createDb } from '../shared/db/pool.ts';
import type { ApiTier, Variant } from '../shared/db/tables/accounts.ts';
import { EventListener } from '../shared/jobs/events.ts';
import { startDnsServer } from '../test/helpers/dns-server.ts';
import { startWorker, type WorkerProcess } from '../worker/runner.ts';

// What every section gets: a migrated database, one API and one worker process-in-this-process,
// a database handle and a LISTEN connection. Sections add their own fixtures (sites, keys) on top.

export interface BenchOptions {
  /** Length of each measured load run. */
  seconds: number;
  connections: number;
}

export interface BenchRow {
  measurement: string;
  result: string;
  notes?: string;
}

export interface BenchContext {
  options: BenchOptions;
  config: Config;
  databaseUrl: string;
  db: Kysely<Database>;
  api: ApiServer;
  worker: WorkerProcess;
  events: EventListener;
  /** e.g. "embedded PostgreSQL 17.6" */
  postgres: string;
  /** Progress lines go to stderr; the table goes to stdout. */
  progress: (line: string) => void;
  newKey: (variant: Variant, tier: ApiTier, rateLimit?: number) => Promise<string>;
}

/** A section: one file under bench/, returning its rows of the table. */
export type Section = (ctx: BenchContext) => Promise<BenchRow[]>;

export async function startContext(
  options: BenchOptions,
): Promise<{ ctx: BenchContext; close: () => Promise<void> }> {
  const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  // startWorker's logger reads the process-wide config: quiet it before anything reads it.
  process.env.LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'silent';
  resetConfig();

  let cluster: EmbeddedCluster | undefined;
  let tmp: string | undefined;
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-'));
    fs.chmodSync(tmp, 0o755); // as root, Postgres runs as the `postgres` user, which must enter it
    progress(`starting embedded Postgres in ${tmp}`);
    cluster = await startEmbedded({ dataDir: tmp, reuse: false });
    await ensureDatabase(cluster.url('postgres'), 'sightline_bench');
    databaseUrl = cluster.url('sightline_bench');
  }
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err) => progress(`cleanup: ${String(err)}`));
    if (cluster) await cluster.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    progress('migrating');
    await migrate(databaseUrl);
    // Reverse DNS as deployed by default, against a loopback resolver that never answers (no
    // network here): every look-up times out, the worst case for ingestion.
    const dns = await startDnsServer(null);
    cleanups.push(dns.close);
    const config = loadConfig({
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent', // BENCH_LOG_LEVEL=error shows a server error's cause
      // Scan sections serve their sites on 127.0.0.1 at ports only known once they run.
      SCAN_ALLOW_HOSTS: [process.env.SCAN_ALLOW_HOSTS, '127.0.0.1'].filter(Boolean).join(','),
      // The agent-traffic section pushes millions of events through one site.
      AGENT_INGEST_EVENTS_PER_HOUR: process.env.AGENT_INGEST_EVENTS_PER_HOUR ?? '1000000000',
      AGENT_VERIFY_RDNS: process.env.AGENT_VERIFY_RDNS ?? 'true',
      AGENT_RDNS_SERVERS: process.env.AGENT_RDNS_SERVERS ?? dns.address,
    });
    const handle = createDb(databaseUrl, { max: 10, application: 'sightline-bench' });
    cleanups.push(handle.close);
    const { rows } = await sql<{ v: string }>`select current_setting('server_version') as v`.execute(
      handle.db,
    );
    const events = new EventListener(databaseUrl);
    await events.start();
    cleanups.push(() => events.close());
    const api = await startApi(config, databaseUrl);
    cleanups.push(api.close);
    // No crontab: scheduled housekeeping would only add noise to the measurements.
    const worker = await startWorker(config, databaseUrl, { metricsPort: null, crontab: null });
    cleanups.push(worker.close);

    let seq = 0;
    const ctx: BenchContext = {
      options,
      config,
      databaseUrl,
      db: handle.db,
      api,
      worker,
      events,
      postgres: `${cluster ? 'embedded ' : ''}PostgreSQL ${rows[0]?.v ?? '?'}`,
      progress,
      async newKey(variant, tier, rateLimit) {
        const { key } = await createAccount(handle.db, {
          email: `bench-${process.pid}-${Date.now()}-${++seq}@bench.invalid`,
          variant,
          tier,
          rateLimit: rateLimit ?? null,
        });
        return key.key;
      },
    };
    return { ctx, close };
  } catch (err) {
    await close();
    throw err;
  }
}
