import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { AgentPurpose } from './catalogue.ts';
import { onCatalogueChanged } from './on-catalogue-changed.ts';
import { addLocalAgent, type CatalogueEntry } from './store.ts';
import { refreshCatalogue } from './watch.ts';

// "Report as an agent" (the console's agent page): an automated client becomes a local catalogue
// entry, this process classifies with it at once, and stored events are relabelled.

export const AGENT_PURPOSES_REPORTABLE = ['browse', 'search', 'training'] as const;

interface Log {
  info: (obj: object, msg: string) => void;
  warn: (obj: object, msg: string) => void;
}

export async function reportAgent(
  db: Kysely<Database>,
  input: { token: string; platform: string; purpose: AgentPurpose },
  log?: Log,
): Promise<CatalogueEntry> {
  const entry = await addLocalAgent(db, { ...input, category: 'Reported in the console' });
  log?.info({ token: entry.token, platform: entry.platform, purpose: entry.purpose }, 'agent reported');
  await onCatalogueChanged(db);
  await refreshCatalogue(db, log);
  return entry;
}
