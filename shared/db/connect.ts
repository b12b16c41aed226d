import pg from 'pg';
import type { Config } from '../config.ts';
import { type EmbeddedCluster, startEmbedded } from './embedded.ts';

export const EMBEDDED_DB_NAME = 'sightline';

export interface ResolvedDatabase {
  url: string;
  cluster?: EmbeddedCluster;
  embedded: boolean;
}

/**
 * DATABASE_URL when given; otherwise the embedded cluster under DATA_DIR (reused when running).
 * With `restart`, a cluster this process started is started again whenever it exits on its own.
 */
export async function resolveDatabase(
  cfg: Config,
  opts: { restart?: (line: string) => void } = {},
): Promise<ResolvedDatabase> {
  if (cfg.DATABASE_URL) return { url: cfg.DATABASE_URL, embedded: false };
  const cluster = await startEmbedded({
    dataDir: cfg.dataDir,
    port: cfg.EMBEDDED_PG_PORT,
    reuse: true,
    restart: opts.restart,
  });
  await ensureDatabase(cluster.url('postgres'), EMBEDDED_DB_NAME);
  return { url: cluster.url(EMBEDDED_DB_NAME), cluster, embedded: true };
}

export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const exists = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) {
      const tpl = template ? ` template ${c.escapeIdentifier(template)}` : '';
      await c.query(`create database ${c.escapeIdentifier(name)}${tpl}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created by a concurrent starter
      });
    }
  } finally {
    await c.end();
  }
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`drop database if exists ${c.escapeIdentifier(name)} with (force)`);
  } finally {
    await c.end();
  }
}
