import type { Kysely } from 'kysely';
import {
  isVerificationSourceFile,
  readSourceFile,
  type SyncedSource,
  syncVerificationSource,
} from '../agent-verification/sources-sync.ts';
import type { Database } from '../db/database.ts';
import { detectFormat, type ListFormat, parseList } from './sources/index.ts';
import { type MergeSummary, mergeSynced } from './store.ts';

// `sightline agents sync` and the daily sync_agent_catalogue task: newer copies of the public
// lists (robots.json, well-known-bots.json, crawler-user-agents.json), from files or URLs the
// operator names, merged into the catalogue. Each list is recognised by its shape; a vendor's
// IP-range file or a reverse-DNS suffix file goes to the verification sources instead. URLs are
// fetched through the address policy (SCAN_ALLOW_HOSTS opens private hosts).

/** The name a list's entries cite as their source, by format. */
export const SOURCE_OF_FORMAT: Record<ListFormat, string> = {
  'robots-json': 'ai.robots.txt',
  'well-known-bots': 'arcjet',
  'crawler-user-agents': 'crawler-user-agents',
};

export interface SyncResult extends MergeSummary {
  location: string;
  format: ListFormat;
  agents: number;
}

/** Recognises and merges one list's text. Errors name the location. */
export async function syncListText(
  db: Kysely<Database>,
  location: string,
  text: string,
): Promise<SyncResult> {
  let format: ListFormat;
  try {
    format = detectFormat(text);
  } catch (err) {
    throw new Error(`${location}: ${(err as Error).message}`);
  }
  const source = SOURCE_OF_FORMAT[format];
  const list = parseList(text, source);
  const summary = await mergeSynced(db, source, list, location);
  return { ...summary, location, format, agents: list.length };
}

export type LocationSync =
  | { kind: 'catalogue'; result: SyncResult }
  | { kind: 'verification'; location: string; result: SyncedSource };

/** Reads a file or URL and merges it where it belongs: the catalogue, or the verification sources. */
export async function syncSource(
  db: Kysely<Database>,
  location: string,
  opts: { allowHosts: string },
): Promise<LocationSync> {
  const body = await readSourceFile(location, opts);
  if (isVerificationSourceFile({ from: location, body }))
    return {
      kind: 'verification',
      location,
      result: await syncVerificationSource(db, { from: location, body }),
    };
  return { kind: 'catalogue', result: await syncListText(db, location, body) };
}

/** The configured sources (AGENT_CATALOGUE_SOURCES): comma-separated files or URLs. */
export const sourcesOf = (setting: string): string[] =>
  setting
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** One line per source: what the merge did. */
export function summaryLine(s: LocationSync): string {
  if (s.kind === 'catalogue') {
    const r = s.result;
    const withdrawn = r.withdrawn > 0 ? `, ${r.withdrawn} no longer listed` : '';
    return `${r.source} (${r.location}): ${r.agents} agents, ${r.added} added, ${r.updated} updated, ${r.unchanged} unchanged${withdrawn}`;
  }
  const r = s.result;
  return r.kind === 'rdns'
    ? `${s.location}: reverse DNS for ${r.platforms.map((p) => p.platform).join(', ')}`
    : `${s.location}: IP ranges ${r.sources.map((x) => `${x.source} (${x.ranges} prefixes)`).join(', ')}`;
}
