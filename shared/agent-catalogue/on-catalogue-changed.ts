import type { Kysely, Transaction } from 'kysely';
import { enqueueRelabel } from '../agent-traffic/relabel.ts';
import type { Database } from '../db/database.ts';

// History follows the catalogue: after any change (add, remove, sync) the stored events of the
// retention window are labelled again by the relabel_agent_events job (one queued run at most).

/** Queues the relabelling of stored events; returns the job id. */
export async function onCatalogueChanged(
  db: Kysely<Database> | Transaction<Database>,
): Promise<{ job: string }> {
  const { id } = await enqueueRelabel(db);
  return { job: id };
}
