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

// By pool (guardPool), the clients whose connection has not closed yet.
const openClients = new WeakMap<pg.Pool, Set<pg.PoolClient>>();

/**
 * A database restart must not crash the process. pg emits 'error' on the pool for an idle client
 * and on the client itself for a checked-out one (57P01 admin_shutdown arrives between queries,
 * e.g. in a transaction awaiting our code): with no listener that is an uncaught exception. Both
 * get one; the broken client fails its next query (answered 503 by the API) and the pool
 * replaces it. The pool's clients are tracked until their connection closes (endPool).
 */
export function guardPool(pool: pg.Pool, onError: (err: Error) => void = () => {}): void {
  const open = new Set<pg.PoolClient>();
  openClients.set(pool, open);
  pool.on('error', onError);
  pool.on('connect', (client) => {
    client.on('error', onError);
    open.add(client);
    client.once('end', () => open.delete(client));
  });
}

/**
 * Waits, at most `boundMs`, until every connection of a pool that is ending has closed. pg's
 * Pool.end() resolves once it has asked each client to end, before their sockets close: a
 * Postgres stopped right after (the embedded one, at shutdown) still finds those backends and
 * ends each with an error that their clients report.
 */
async function connectionsClosed(pool: pg.Pool, boundMs = 2000): Promise<void> {
  const open = [...(openClients.get(pool) ?? [])];
  if (open.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(open.map((c) => new Promise((r) => c.once('end', r)))),
    new Promise((r) => {
      timer = setTimeout(r, boundMs);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Ends a pool made or guarded here (unless it is ending already) and waits for its connections to
 * close (connectionsClosed).
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  if (!pool.ending) await pool.end();
  await connectionsClosed(pool);
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
      await db.destroy(); // ends the pool once Kysely has used it (not when used only through poolOf)
      await endPool(pool);
    },
  };
}
