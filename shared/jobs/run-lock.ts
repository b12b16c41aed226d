import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';

// A run lock: a Postgres session advisory lock that the process working on a unit (a scan) holds,
// on a connection of its own, for as long as it works. Whoever settles that unit from outside (a
// stranded scan failed for its waiting clients) first tries the same lock in its transaction: held
// means a live worker is on it. A worker that dies loses its session, and the lock with it.

/** Lock classes (the first key of the two-key advisory lock), one per kind of unit. */
export const RUN_LOCK = { scan: 0x5343 } as const;
export type RunLockKind = (typeof RUN_LOCK)[keyof typeof RUN_LOCK];

/** Runs `fn` holding the unit's run lock (waiting for it while a settle holds it). */
export function withRunLock<T>(
  db: Kysely<Database>,
  kind: RunLockKind,
  id: string,
  fn: () => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${kind}::int, hashtext(${id}))`.execute(conn);
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${kind}::int, hashtext(${id}))`.execute(conn).catch(() => {});
    }
  });
}

/**
 * Takes the unit's run lock until the end of the caller's transaction, if nobody holds it: false
 * means a worker is on the unit now.
 */
export async function tryRunLock(trx: Kysely<Database>, kind: RunLockKind, id: string): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(${kind}::int, hashtext(${id})) as locked`.execute(trx);
  return rows[0]?.locked === true;
}
