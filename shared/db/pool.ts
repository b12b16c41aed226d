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

export function createDb(url: string, opts: { max?: number; application?: string } = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.application ?? 'sightline',
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
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
