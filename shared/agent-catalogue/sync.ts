import { readFile } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { detectFormat, type ListFormat, parseList } from './sources/index.ts';
import { type MergeSummary, mergeSynced } from './store.ts';

// `sightline agents sync` and the daily sync_agent_catalogue task: newer copies of the public
// lists (robots.json, well-known-bots.json, crawler-user-agents.json), from files or URLs the
// operator names, merged into the catalogue. Each list is recognised by its shape.

/** The name a list's entries cite as their source, by format. */
export const SOURCE_OF_FORMAT: Record<ListFormat, string> = {
  'robots-json': 'ai.robots.txt',
  'well-known-bots': 'arcjet',
  'crawler-user-agents': 'crawler-user-agents',
};

const FETCH_TIMEOUT_MS = 30_000;
const MAX_BYTES = 20 * 1024 * 1024;

/** A list's text from an http(s) URL or a file path. */
export async function readSourceText(location: string): Promise<string> {
  if (!/^https?:\/\//i.test(location)) return readFile(location, 'utf8');
  const res = await fetch(location, {
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: 'application/json' },
  });
  if (!res.ok) throw new Error(`${location}: HTTP ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_BYTES) throw new Error(`${location}: larger than ${MAX_BYTES} bytes`);
  return text;
}

export interface SyncResult extends MergeSummary {
  location: string;
  format: ListFormat;
  agents: number;
}

/** Reads, recognises and merges one list. Errors name the location. */
export async function syncSource(db: Kysely<Database>, location: string): Promise<SyncResult> {
  const text = await readSourceText(location);
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

/** The configured sources (AGENT_CATALOGUE_SOURCES): comma-separated files or URLs. */
export const sourcesOf = (setting: string): string[] =>
  setting
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** One line per source: what the merge did. */
export const summaryLine = (r: SyncResult): string =>
  `${r.source} (${r.location}): ${r.agents} agents, ${r.added} added, ${r.updated} updated, ${r.unchanged} unchanged`;
