import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMigrations } from 'graphile-worker';
import pg from 'pg';
import { loadSnapshot } from '../agent-catalogue/store.ts';
import { createDb } from './pool.ts';

const SQL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql');
// Any constant works; it only has to be the same in every process that migrates.
const MIGRATION_LOCK = 7_301_442_118;

export interface Migration {
  id: number;
  name: string;
  file: string;
}

/**
 * The explicit, ordered list: sql/NNN_name.sql, each number once. Numbers may skip (parallel
 * branches are given ranges of numbers), never repeat.
 */
export function listMigrations(dir = SQL_DIR): Migration[] {
  const list = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: Number(f.slice(0, 3)), name: f.slice(4, -4), file: path.join(dir, f) }));
  list.forEach((m, i) => {
    if (m.id < 1 || (i > 0 && m.id <= list[i - 1]!.id))
      throw new Error(`migration number used twice (or 0) at ${path.basename(m.file)}`);
  });
  return list;
}

/** The SQL functions, one file per capability (sql/functions/*.sql), in name order. */
export function listFunctionFiles(dir = path.join(SQL_DIR, 'functions')): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * Applies our migrations (schema), each in its own transaction, then every SQL function file
 * (`create or replace`, so this is done on every migrate, each file in its own transaction),
 * then graphile-worker's schema.
 * Safe when several processes start together: a session advisory lock lets one migrate while the
 * others wait, and then they find nothing left to do.
 */
export async function migrate(url: string, log: (msg: string) => void = () => {}): Promise<number[]> {
  const client = new pg.Client({ connectionString: url, application_name: 'sightline-migrate' });
  await client.connect();
  const applied: number[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`create table if not exists sightline_migrations (
      id integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const done = new Set(
      (await client.query<{ id: number }>('select id from sightline_migrations')).rows.map((r) => r.id),
    );
    for (const m of listMigrations()) {
      if (done.has(m.id)) continue;
      const sql = fs.readFileSync(m.file, 'utf8');
      await client.query('begin');
      try {
        await client.query(sql);
        await client.query('insert into sightline_migrations (id, name) values ($1, $2)', [m.id, m.name]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${path.basename(m.file)} failed: ${(err as Error).message}`);
      }
      applied.push(m.id);
      log(`applied migration ${path.basename(m.file)}`);
    }
    for (const file of listFunctionFiles()) await applyFunctions(client, file);
    await runMigrations({ connectionString: url, logger: quietLogger });
    await loadShippedCatalogue(url, log);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
  return applied;
}

/** The shipped agent catalogue snapshot into agent_catalogue (a no-op when it is loaded already). */
async function loadShippedCatalogue(url: string, log: (msg: string) => void): Promise<void> {
  const handle = createDb(url, { max: 1, application: 'sightline-migrate' });
  try {
    if ((await loadSnapshot(handle.db)) === 'loaded') log('loaded the shipped agent catalogue snapshot');
  } finally {
    await handle.close();
  }
}

/** A function file in one transaction: a file that fails leaves the functions as they were. */
async function applyFunctions(client: pg.Client, file: string): Promise<void> {
  const sql = fs.readFileSync(file, 'utf8');
  await client.query('begin');
  try {
    await client.query(sql);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw new Error(`functions ${path.relative(SQL_DIR, file)} failed: ${(err as Error).message}`);
  }
}

import { Logger as GwLogger } from 'graphile-worker';

const quietLogger = new GwLogger(() => () => {});
