import { AGENTS } from './catalogue.ts';
import { CATALOGUE_IN_USE } from './classify.ts';
import { OWN_SOURCE, readSnapshot, type SnapshotAgent } from './snapshot.ts';

// The catalogue the service classifies with, as data: our own entries (catalogue.ts) and the
// shipped snapshot's entries from public lists, each with its provenance and verification method.

export interface CatalogueView {
  version: string;
  sources: { name: string; agents: number }[];
  agents: (Omit<SnapshotAgent, 'verification'> & {
    verification: { ipRanges: string | null; rdnsSuffixes: string[]; webBotAuth: boolean };
  })[];
}

/** `rdns` gives the reverse-DNS suffixes that verify an agent (shared/agent-verification). */
export function catalogueInUse(
  rdns: (token: string, platform: string) => string[] | undefined,
): CatalogueView {
  const snapshot = readSnapshot();
  const meta = new Map(snapshot.agents.map((a) => [a.token.toLowerCase(), a]));
  const own = new Set(AGENTS.map((a) => a.token));
  return {
    version: snapshot.version,
    sources: [{ name: OWN_SOURCE, agents: AGENTS.length }, ...snapshot.sources],
    agents: CATALOGUE_IN_USE.map((a) => {
      const m = meta.get(a.token.toLowerCase());
      return {
        token: a.token,
        aliases: [...a.aliases],
        ...(a.pattern ? { pattern: a.pattern.source } : {}),
        operator: a.operator,
        platform: a.platform,
        purpose: a.purpose,
        category: m?.category ?? '',
        ai: a.ai,
        match: a.match,
        // Every agent may sign its requests (Web Bot Auth); the signature names it, not the list.
        verification: {
          ipRanges: a.ipRanges ?? null,
          rdnsSuffixes: rdns(a.token, a.platform) ?? [],
          webBotAuth: true,
        },
        sources: m?.sources ?? (own.has(a.token) ? [OWN_SOURCE] : []),
        added: m?.added ?? snapshot.version.slice(0, 10),
      };
    }),
  };
}
