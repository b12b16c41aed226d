import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AGENTS, type AgentInfo } from './catalogue.ts';
import { type ListedAgent, parseList } from './sources/index.ts';
import { categoryFrom } from './sources/normalise.ts';

// The shipped catalogue snapshot: the public lists' AI agents and search engines merged with our
// own entries (catalogue.ts), which win on every fact. Built by `npm run catalogue:snapshot`
// from the lists; the generated JSON is committed as our derived data.

export interface SnapshotAgent {
  token: string;
  aliases: string[];
  /** A list's user-agent pattern, for entries no own entry covers. */
  pattern?: string;
  operator: string;
  platform: string;
  purpose: AgentInfo['purpose'];
  category: string;
  ai: boolean;
  match: AgentInfo['match'];
  verification: { ipRanges?: string; webBotAuth?: boolean };
  /** Where the facts came from: `sightline` for our own entries, then each list naming it. */
  sources: string[];
  /** When the entry first appeared in a snapshot (YYYY-MM-DD). */
  added: string;
}

export interface Snapshot {
  version: string;
  sources: { name: string; agents: number }[];
  agents: SnapshotAgent[];
}

export const OWN_SOURCE = 'sightline';
export const SNAPSHOT_FILE = fileURLToPath(new URL('./data/snapshot.json', import.meta.url));

const key = (s: string) => s.trim().toLowerCase();

const fromOwn = (a: AgentInfo, added: string): SnapshotAgent => ({
  token: a.token,
  aliases: [...a.aliases],
  ...(a.pattern ? { pattern: a.pattern.source } : {}),
  operator: a.operator,
  platform: a.platform,
  purpose: a.purpose,
  category: '',
  ai: a.ai,
  match: a.match,
  verification: a.ipRanges ? { ipRanges: a.ipRanges } : {},
  sources: [OWN_SOURCE],
  added,
});

const fromList = (a: ListedAgent, added: string): SnapshotAgent => ({
  token: a.token,
  aliases: [],
  ...(a.pattern ? { pattern: a.pattern.source } : {}),
  operator: a.operator,
  platform: a.platform,
  purpose: a.purpose,
  category: a.category,
  ai: a.ai,
  match: 'word',
  verification: {},
  sources: [a.source],
  added,
});

/**
 * Merges lists into our own entries. An entry whose token (or spelling) an earlier entry already
 * has only adds its source and, where ours has none, its category; `previous` keeps `added` dates.
 */
export function buildSnapshot(
  lists: { name: string; text: string }[],
  opts: { date: string; own?: readonly AgentInfo[]; previous?: Snapshot },
): Snapshot {
  const previousAdded = new Map((opts.previous?.agents ?? []).map((a) => [key(a.token), a.added]));
  const addedOf = (token: string) => previousAdded.get(key(token)) ?? opts.date;
  const agents: SnapshotAgent[] = [];
  const bySpelling = new Map<string, SnapshotAgent>();
  const add = (a: SnapshotAgent) => {
    agents.push(a);
    for (const s of [a.token, ...a.aliases]) bySpelling.set(key(s), a);
  };
  for (const a of opts.own ?? AGENTS) add(fromOwn(a, addedOf(a.token)));
  const sources: Snapshot['sources'] = [];
  for (const list of lists) {
    const parsed = parseList(list.text, list.name);
    sources.push({ name: list.name, agents: parsed.length });
    for (const a of parsed) {
      const known = bySpelling.get(key(a.token));
      if (!known) add(fromList(a, addedOf(a.token)));
      else {
        if (!known.sources.includes(list.name)) known.sources.push(list.name);
        if (!known.category && a.category) known.category = a.category;
      }
    }
  }
  // An entry no list categorised gets the category its purpose implies.
  for (const a of agents) if (!a.category) a.category = categoryFrom('', a.purpose);
  return { version: `${opts.date}.${agents.length}`, sources, agents };
}

/** The catalogue's entries as the classifier reads them. */
export function agentsOf(snapshot: Snapshot): AgentInfo[] {
  return agentsOfEntries(snapshot.agents);
}

/**
 * Entries (the snapshot's, or the database's with their origin) as the classifier reads them:
 * local and own entries are ours, the rest listed.
 */
export function agentsOfEntries(
  entries: readonly (SnapshotAgent & { origin?: 'snapshot' | 'synced' | 'local' })[],
): AgentInfo[] {
  return entries.map((a) => ({
    token: a.token,
    aliases: a.aliases,
    operator: a.operator,
    platform: a.platform,
    purpose: a.purpose,
    ai: a.ai,
    match: a.match,
    ...patternOf(a.pattern),
    ...(a.verification.ipRanges ? { ipRanges: a.verification.ipRanges as AgentInfo['ipRanges'] } : {}),
    listed: a.origin !== 'local' && !a.sources.includes(OWN_SOURCE),
  }));
}

/** A stored pattern that is not a valid regular expression is left out: the spellings still match. */
function patternOf(source: string | undefined): { pattern?: RegExp } {
  if (!source) return {};
  try {
    return { pattern: new RegExp(source, 'i') };
  } catch {
    return {};
  }
}

/** The snapshot's entries that come from public lists only (our own are read from catalogue.ts). */
export function listedAgents(snapshot: Snapshot): AgentInfo[] {
  return agentsOf(snapshot).filter((a) => a.listed);
}

export function readSnapshot(file = SNAPSHOT_FILE): Snapshot {
  return JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
}
