import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.ts';

// bigint (int8) stays a string: ids can exceed 2^53; counts are cast in SQL where a number is wanted.
export interface Db {
  db: Kysely<Database>;
  pool: pg.Pool;
  url: string;
  close: () => Promise<void>;
}

/**
 * A database restart must not crash the process. pg emits 'error' on the pool for an idle client
 * and on the client itself for a checked-out one (57P01 admin_shutdown arrives between queries,
 * e.g. in a transaction awaiting our code): with no listener that is an uncaught exception. Both
 * get one; the broken client fails its next query (answered 503 by the API) and the pool
 * replaces it.
 */
export function guardPool(pool: pg.Pool, onError: (err: Error) => void = () => {}): void {
  pool.on('error', onError);
  pool.on('connect', (client) => {
    client.on('error', onError);
  });
}

const pools = new WeakMap<Kysely<Database>, pg.Pool>();

/**
 * The pool behind a handle made by createDb, for the few hot statements that go to pg directly as
 * named (prepared once per connection) statements; undefined for anything else (a transaction).
 */
export function poolOf(db: Kysely<Database>): pg.Pool | undefined {
  return pools.get(db);
}

export function createDb(url: string, opts: { max?: number; application?: string } = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.application ?? 'sightline',
  });
  guardPool(pool);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  let closed = false;
  return {
    db,
    pool,
    url,
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
