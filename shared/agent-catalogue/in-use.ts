import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import {
  type CatalogueEntry,
  type CatalogueSource,
  catalogueVersion,
  listAgents,
  listSources,
} from './store.ts';

// The catalogue the service classifies with, as data: the database's entries (shipped snapshot,
// synced lists, local entries), each with its provenance and verification method.

export interface CatalogueView {
  version: string;
  snapshot: string;
  sources: (CatalogueSource & { entries: number })[];
  agents: (Omit<CatalogueEntry, 'verification' | 'updatedAt'> & {
    updated: string;
    verification: { ipRanges: string | null; rdnsSuffixes: string[]; webBotAuth: boolean };
  })[];
}

/** `rdns` gives the reverse-DNS suffixes that verify an agent (shared/agent-verification). */
export async function catalogueInUse(
  db: Kysely<Database>,
  rdns: (token: string, platform: string) => string[] | undefined,
): Promise<CatalogueView> {
  const [version, entries, sources] = await Promise.all([
    catalogueVersion(db),
    listAgents(db),
    listSources(db),
  ]);
  const counts = new Map<string, number>();
  for (const a of entries) for (const s of a.sources) counts.set(s, (counts.get(s) ?? 0) + 1);
  return {
    version: version.version,
    snapshot: version.snapshot,
    sources: sources.map((s) => ({ ...s, entries: counts.get(s.name) ?? 0 })),
    agents: entries.map(({ updatedAt, verification, ...a }) => ({
      ...a,
      updated: updatedAt,
      // Every agent may sign its requests (Web Bot Auth); the signature names it, not the list.
      verification: {
        ipRanges: verification.ipRanges ?? null,
        rdnsSuffixes: rdns(a.token, a.platform) ?? [],
        webBotAuth: true,
      },
    })),
  };
}
