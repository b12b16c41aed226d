import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './database.ts';

// Retention work deletes (or updates) in batches, so one run never holds a long lock or a huge
// transaction: `step` handles at most `size` rows and says how many it did; repeat until short.

export const RETENTION_BATCH = 1000;

export async function inBatches(
  step: (size: number) => Promise<number>,
  opts: { size?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const size = opts.size ?? RETENTION_BATCH;
  let total = 0;
  for (;;) {
    if (opts.signal?.aborted) break;
    const n = await step(size);
    total += n;
    if (n < size) break;
  }
  return total;
}

/**
 * Deletes, in batches, the rows of `table` whose `column` is older than `days` (and that match
 * `also`, when given): the shape of every retention rule.
 */
export function deleteOlderThan(
  db: Kysely<Database>,
  rule: { table: keyof Database & string; column: string; days: number; also?: RawBuilder<unknown> },
  opts: { size?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const also = rule.also ? sql`and ${rule.also}` : sql``;
  return inBatches(async (size) => {
    const r = await sql`
      delete from ${sql.table(rule.table)} where id in (
        select id from ${sql.table(rule.table)}
         where ${sql.ref(rule.column)} < now() - make_interval(days => ${rule.days}) ${also}
         limit ${size})`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  }, opts);
}
