import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { catalogueVersionInUse, useCatalogue } from './classify.ts';
import { agentsOfEntries } from './snapshot.ts';
import { catalogueVersion, listAgents } from './store.ts';

// Processes classify with the database's catalogue: loaded at start, and again whenever its
// revision moves (an `agents add|remove|sync`, the console, the daily sync, a new snapshot).
// The revision is one row read, checked at most every `intervalMs`.

interface Log {
  info: (obj: object, msg: string) => void;
  warn: (obj: object, msg: string) => void;
}

/** Loads the catalogue when its version differs from the one in use; true when it was reloaded. */
export async function refreshCatalogue(db: Kysely<Database>, log?: Log): Promise<boolean> {
  const { version } = await catalogueVersion(db);
  if (version === catalogueVersionInUse()) return false;
  const entries = await listAgents(db);
  // An empty table (a database migrated before the snapshot loaded) keeps the shipped catalogue.
  if (entries.length === 0) return false;
  useCatalogue(agentsOfEntries(entries), version);
  log?.info({ version, agents: entries.length }, 'agent catalogue loaded');
  return true;
}

export interface CatalogueWatch {
  stop: () => void;
}

/** Loads the catalogue now, then checks its version every `intervalMs` until stopped. */
export async function watchCatalogue(
  db: Kysely<Database>,
  opts: { intervalMs: number; log?: Log },
): Promise<CatalogueWatch> {
  // A database without the catalogue yet (started with --no-migrate) keeps the shipped one.
  await refreshCatalogue(db, opts.log).catch((err: unknown) =>
    opts.log?.warn({ err }, 'agent catalogue not loaded; classifying with the shipped one'),
  );
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    refreshCatalogue(db, opts.log)
      .catch((err: unknown) =>
        opts.log?.warn({ err }, 'agent catalogue reload failed; keeping the one in use'),
      )
      .finally(() => {
        running = false;
      });
  }, opts.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
