import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import { badRequest } from '../errors.ts';
import type { AgentPurpose } from './catalogue.ts';
import { OWN_SOURCE, readSnapshot, type Snapshot, type SnapshotAgent } from './snapshot.ts';
import type { ListedAgent } from './sources/index.ts';
import { categoryFrom } from './sources/normalise.ts';

// The catalogue in the database (table agent_catalogue, sql/038). A token has at most one shared
// row (origin `snapshot` or `synced`) and one `local` row; the local row wins. Every change bumps
// agent_catalogue_state.revision in the same transaction, which the processes watch to reload.

type Db = Kysely<Database> | Transaction<Database>;

export type CatalogueOrigin = 'snapshot' | 'synced' | 'local';

export interface CatalogueEntry extends SnapshotAgent {
  origin: CatalogueOrigin;
  updatedAt: string;
}

export interface CatalogueSource {
  name: string;
  location: string;
  agents: number;
  syncedAt: string;
}

interface Row {
  token: string;
  aliases: string[];
  pattern: string | null;
  operator: string;
  platform: string;
  purpose: AgentPurpose;
  category: string;
  ai: boolean;
  match: 'word' | 'product';
  verification: SnapshotAgent['verification'];
  sources: string[];
  origin: CatalogueOrigin;
  added: string;
  updated_at: Date;
}

const COLUMNS = sql.raw(`token, aliases, pattern, operator, platform, purpose, category, ai, match,
  verification, sources, origin, to_char(added, 'YYYY-MM-DD') as added, updated_at`);

const entryOf = (r: Row): CatalogueEntry => ({
  token: r.token,
  aliases: r.aliases,
  ...(r.pattern ? { pattern: r.pattern } : {}),
  operator: r.operator,
  platform: r.platform,
  purpose: r.purpose,
  category: r.category,
  ai: r.ai,
  match: r.match,
  verification: r.verification,
  sources: r.sources,
  origin: r.origin,
  added: r.added,
  updatedAt: r.updated_at.toISOString(),
});

/** The catalogue in effect: local entries first, then shared ones no local entry overrides. */
export async function listAgents(db: Db): Promise<CatalogueEntry[]> {
  const { rows } = await sql<Row>`
    select ${COLUMNS} from agent_catalogue c
    where is_local or not exists (
      select 1 from agent_catalogue l where l.is_local and l.token_key = c.token_key)
    order by is_local desc, id`.execute(db);
  return rows.map(entryOf);
}

/** The entry in effect for a token or one of its spellings (case-insensitive). */
export async function getAgent(db: Db, token: string): Promise<CatalogueEntry | undefined> {
  const key = token.trim().toLowerCase();
  const { rows } = await sql<Row>`
    select ${COLUMNS} from agent_catalogue
    where token_key = ${key} or ${key} = any(select lower(a) from unnest(aliases) a)
    order by is_local desc, (token_key = ${key}) desc, id limit 1`.execute(db);
  return rows[0] && entryOf(rows[0]);
}

export interface CatalogueVersion {
  /** Changes with every change of the catalogue: `<shipped snapshot>+<revision>`. */
  version: string;
  revision: number;
  snapshot: string;
}

export async function catalogueVersion(db: Db): Promise<CatalogueVersion> {
  const { rows } = await sql<{ revision: string; snapshot: string }>`
    select revision::text, snapshot from agent_catalogue_state`.execute(db);
  const r = rows[0] ?? { revision: '0', snapshot: '' };
  return { version: `${r.snapshot}+${r.revision}`, revision: Number(r.revision), snapshot: r.snapshot };
}

export async function listSources(db: Db): Promise<CatalogueSource[]> {
  const { rows } = await sql<{ name: string; location: string; agents: number; synced_at: Date }>`
    select name, location, agents, synced_at from agent_catalogue_sources order by name <> 'sightline', name`.execute(
    db,
  );
  return rows.map((r) => ({
    name: r.name,
    location: r.location,
    agents: r.agents,
    syncedAt: r.synced_at.toISOString(),
  }));
}

const bump = (db: Db) =>
  sql`update agent_catalogue_state set revision = revision + 1, changed_at = now()`.execute(db);

export interface LocalAgentInput {
  token: string;
  platform: string;
  purpose: AgentPurpose;
  operator?: string;
  category?: string;
  aliases?: string[];
  ai?: boolean;
}

// Browsers of the common engines: a local token that matches one would turn people into agents.
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
];

/** A token a local entry may have: 3 to 120 characters, and no part of an ordinary browser's user agent. */
export function checkLocalToken(token: string): string | null {
  if (token.length < 3 || token.length > 120) return 'a token has 3 to 120 characters';
  const word = new RegExp(
    `(?<![A-Za-z0-9])${token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`,
    'i',
  );
  if (BROWSERS.some((b) => word.test(b)))
    return `${token} is part of ordinary browsers' user agents: it would count people as agents`;
  return null;
}

/** Adds (or replaces) the local entry for a token; it wins over a shared entry of the same token. */
export async function addLocalAgent(db: Kysely<Database>, input: LocalAgentInput): Promise<CatalogueEntry> {
  const token = input.token.trim();
  for (const [field, t] of [['token', token], ...(input.aliases ?? []).map((a) => ['alias', a.trim()])]) {
    const problem = checkLocalToken(t!);
    if (problem) throw badRequest(problem, [{ field: field!, message: problem }]);
  }
  return db.transaction().execute(async (tx) => {
    const shared = await sql<{ sources: string[] }>`
      select sources from agent_catalogue where token_key = lower(${token}) and not is_local`.execute(tx);
    const sources = [...new Set(['local', ...(shared.rows[0]?.sources ?? [])])];
    const { rows } = await sql<Row>`
      insert into agent_catalogue (token, aliases, operator, platform, purpose, category, ai, match,
        sources, origin)
      values (${token}, ${input.aliases ?? []}::text[], ${input.operator ?? input.platform},
        ${input.platform}, ${input.purpose}, ${input.category || categoryFrom('', input.purpose)}, ${input.ai ?? input.purpose !== 'search-engine'},
        'word', ${sources}::text[], 'local')
      on conflict (token_key, is_local) do update set token = excluded.token, aliases = excluded.aliases,
        operator = excluded.operator, platform = excluded.platform, purpose = excluded.purpose,
        category = excluded.category, ai = excluded.ai, updated_at = now()
      returning ${COLUMNS}`.execute(tx);
    await bump(tx);
    return entryOf(rows[0]!);
  });
}

/** Removes a local entry; 'not-local' when the token is only a shared (snapshot or synced) entry. */
export async function removeLocalAgent(
  db: Kysely<Database>,
  token: string,
): Promise<'removed' | 'not-local' | 'unknown'> {
  return db.transaction().execute(async (tx) => {
    const del =
      await sql`delete from agent_catalogue where is_local and token_key = lower(${token.trim()})`.execute(
        tx,
      );
    if (Number(del.numAffectedRows ?? 0) > 0) {
      await bump(tx);
      return 'removed';
    }
    const { rows } =
      await sql`select 1 from agent_catalogue where token_key = lower(${token.trim()})`.execute(tx);
    return rows.length ? 'not-local' : 'unknown';
  });
}

export interface MergeSummary {
  source: string;
  added: number;
  updated: number;
  unchanged: number;
  /** Entries the list named before and no longer does: the list is dropped from their sources. */
  withdrawn: number;
}

/** The facts a list owns on an entry it created (ours, from `sightline`, are never overwritten). */
const FACTS = ['operator', 'platform', 'purpose', 'category', 'ai', 'pattern'] as const;

/**
 * Merges a public list into the shared rows. A token (or spelling) not yet known is added as
 * `synced`; an entry the list first named takes the list's facts; any other entry only gains the
 * list as a source (and its category when it has none). An entry that cites the list but that this
 * copy no longer names loses the list as a source, and is deleted when no source is left (see
 * withdraw). Local entries are never touched.
 */
export async function mergeSynced(
  db: Kysely<Database>,
  source: string,
  list: readonly ListedAgent[],
  location = source,
): Promise<MergeSummary> {
  return db.transaction().execute(async (tx) => {
    const { rows } = await sql<Row & { id: string }>`
      select id, ${COLUMNS} from agent_catalogue where not is_local`.execute(tx);
    const bySpelling = new Map<string, Row & { id: string }>();
    for (const r of rows) for (const s of [r.token, ...r.aliases]) bySpelling.set(s.toLowerCase(), r);
    const summary: MergeSummary = { source, added: 0, updated: 0, unchanged: 0, withdrawn: 0 };
    const seen = new Set<string>();
    const named = new Set<string>(); // ids of the rows this copy names
    for (const a of list) {
      const key = a.token.trim().toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const known = bySpelling.get(key);
      if (known) named.add(known.id);
      if (!known) {
        await insertSynced(tx, a, source);
        summary.added++;
      } else if (await updateFromList(tx, known, a, source)) summary.updated++;
      else summary.unchanged++;
    }
    summary.withdrawn = await withdraw(tx, source, rows, named);
    await sql`
      insert into agent_catalogue_sources (name, location, agents) values (${source}, ${location}, ${list.length})
      on conflict (name) do update set location = excluded.location, agents = excluded.agents,
        synced_at = now()`.execute(tx);
    if (summary.added + summary.updated + summary.withdrawn > 0) await bump(tx);
    return summary;
  });
}

/**
 * Drops `source` from the rows that cite it but are not `named` by this copy, and deletes a row
 * left with no source (the list was the only one to name it). A copy that names fewer than half of
 * the rows citing the list looks cut short (a failed download, a test file, the wrong URL): it
 * withdraws nothing, so a bad copy cannot empty the catalogue. Returns how many rows it changed.
 */
async function withdraw(
  tx: Db,
  source: string,
  rows: readonly (Row & { id: string })[],
  named: ReadonlySet<string>,
): Promise<number> {
  const citing = rows.filter((r) => r.sources.includes(source));
  const gone = citing.filter((r) => !named.has(r.id));
  if (gone.length === 0 || (citing.length - gone.length) * 2 < citing.length) return 0;
  for (const r of gone) {
    const rest = r.sources.filter((s) => s !== source);
    if (rest.length === 0) await sql`delete from agent_catalogue where id = ${r.id}::bigint`.execute(tx);
    else
      await sql`update agent_catalogue set sources = ${rest}::text[], updated_at = now()
        where id = ${r.id}::bigint`.execute(tx);
  }
  return gone.length;
}

async function insertSynced(tx: Db, a: ListedAgent, source: string): Promise<void> {
  await sql`
    insert into agent_catalogue (token, aliases, pattern, operator, platform, purpose, category, ai,
      match, sources, origin)
    values (${a.token}, ${[...a.aliases]}::text[], ${a.pattern?.source ?? null}, ${a.operator},
      ${a.platform}, ${a.purpose}, ${a.category}, ${a.ai}, ${a.match}, ${[source]}::text[], 'synced')`.execute(
    tx,
  );
}

async function updateFromList(
  tx: Db,
  known: Row & { id: string },
  a: ListedAgent,
  source: string,
): Promise<boolean> {
  const owns = known.sources[0] === source;
  const next = {
    ...known,
    sources: known.sources.includes(source) ? known.sources : [...known.sources, source],
  };
  if (owns) Object.assign(next, { ...pick(a), pattern: a.pattern?.source ?? null });
  else if (!known.category && a.category) next.category = a.category;
  const changed =
    next.sources.length !== known.sources.length ||
    FACTS.some((f) => (next[f] ?? null) !== (known[f] ?? null));
  if (!changed) return false;
  await sql`
    update agent_catalogue set operator = ${next.operator}, platform = ${next.platform},
      purpose = ${next.purpose}, category = ${next.category}, ai = ${next.ai}, pattern = ${next.pattern},
      sources = ${next.sources}::text[], origin = 'synced', updated_at = now()
    where id = ${known.id}::bigint`.execute(tx);
  return true;
}

const pick = (a: ListedAgent) => ({
  operator: a.operator,
  platform: a.platform,
  purpose: a.purpose,
  category: a.category,
  ai: a.ai,
});

/**
 * Loads the shipped snapshot (every migrate; nothing to do when it was loaded already). A newer
 * snapshot replaces the shared rows' facts (snapshot and synced alike) and drops snapshot rows it
 * no longer has; local rows are never touched. An older snapshot than the one loaded is ignored.
 */
export async function loadSnapshot(
  db: Kysely<Database>,
  snapshot: Snapshot = readSnapshot(),
): Promise<'loaded' | 'current' | 'older'> {
  return db.transaction().execute(async (tx) => {
    const { rows } = await sql<{ snapshot: string }>`
      select snapshot from agent_catalogue_state for update`.execute(tx);
    const loaded = rows[0]?.snapshot ?? '';
    if (loaded === snapshot.version) return 'current';
    if (loaded && compareVersions(snapshot.version, loaded) < 0) return 'older';
    const tokens = snapshot.agents.map((a) => a.token.toLowerCase());
    await sql`delete from agent_catalogue where origin = 'snapshot'
      and token_key <> all(${tokens}::text[])`.execute(tx);
    for (const a of snapshot.agents) await upsertShipped(tx, a);
    for (const s of [{ name: OWN_SOURCE, agents: countOwn(snapshot) }, ...snapshot.sources])
      await sql`
        insert into agent_catalogue_sources (name, location, agents) values (${s.name}, 'snapshot', ${s.agents})
        on conflict (name) do update set location = 'snapshot', agents = excluded.agents, synced_at = now()
        where agent_catalogue_sources.location = 'snapshot'`.execute(tx);
    await sql`update agent_catalogue_state set snapshot = ${snapshot.version}, revision = revision + 1,
      changed_at = now()`.execute(tx);
    return 'loaded';
  });
}

const countOwn = (s: Snapshot) => s.agents.filter((a) => a.sources.includes(OWN_SOURCE)).length;

async function upsertShipped(tx: Db, a: SnapshotAgent): Promise<void> {
  await sql`
    insert into agent_catalogue (token, aliases, pattern, operator, platform, purpose, category, ai,
      match, verification, sources, origin, added)
    values (${a.token}, ${a.aliases}::text[], ${a.pattern ?? null}, ${a.operator}, ${a.platform},
      ${a.purpose}, ${a.category}, ${a.ai}, ${a.match}, ${JSON.stringify(a.verification)}::jsonb,
      ${a.sources}::text[], 'snapshot', ${a.added}::date)
    on conflict (token_key, is_local) do update set token = excluded.token, aliases = excluded.aliases,
      pattern = excluded.pattern, operator = excluded.operator, platform = excluded.platform,
      purpose = excluded.purpose, category = excluded.category, ai = excluded.ai, match = excluded.match,
      verification = excluded.verification, sources = excluded.sources, origin = 'snapshot',
      updated_at = now()`.execute(tx);
}

/** Snapshot versions are `YYYY-MM-DD.N`: the date first, then the count. */
export function compareVersions(a: string, b: string): number {
  const [da = '', na = '0'] = a.split('.');
  const [db = '', nb = '0'] = b.split('.');
  return da === db ? Number(na) - Number(nb) : da < db ? -1 : 1;
}
