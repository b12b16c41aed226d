import fs from 'node:fs';
import { type Kysely, sql } from 'kysely';
import type { IpRangeSourceId } from '../agent-catalogue/catalogue.ts';
import { readSnapshot } from '../agent-catalogue/snapshot.ts';
import type { Database } from '../db/database.ts';
import { type RangeData, SHIPPED_RANGES_FILE } from './ip-data.ts';
import { IP_RANGE_SOURCES } from './ip-ranges.ts';
import { rdnsSuffixesByPlatform } from './verify.ts';

// How old the data behind agent naming and verification is: the catalogue snapshot (its version
// date) and each verification source, synced (its fetch) or shipped (the snapshot's date). Older
// than STALE_AFTER_DAYS is stale: /api/v1/status reports it in its details, the console shows a
// notice, and `sightline agents ranges sync` (or a release) refreshes it.

export const STALE_AFTER_DAYS = 30;

export interface DataAge {
  /** The IP-range source key, `rdns:<platform>`, or `catalogue`. */
  source: string;
  origin: 'shipped' | 'synced';
  /** The day the data was made or fetched (YYYY-MM-DD); null when nothing says. */
  asOf: string | null;
  ageDays: number | null;
  stale: boolean;
}

export interface AgentDataFreshness {
  staleAfterDays: number;
  /** Whether any source below is stale. */
  stale: boolean;
  catalogue: DataAge & { version: string };
  verificationSources: DataAge[];
}

/** What /api/v1/status says of it: counts, not the list (that is in GET /api/v1/agents and the console). */
export interface AgentDataSummary {
  staleAfterDays: number;
  stale: boolean;
  catalogue: DataAge & { version: string };
  verificationSources: { total: number; stale: number; oldestAsOf: string | null };
}

export function summariseFreshness(f: AgentDataFreshness): AgentDataSummary {
  const dated = f.verificationSources.flatMap((s) => (s.asOf ? [s.asOf] : [])).sort();
  return {
    staleAfterDays: f.staleAfterDays,
    stale: f.stale,
    catalogue: f.catalogue,
    verificationSources: {
      total: f.verificationSources.length,
      stale: f.verificationSources.filter((s) => s.stale).length,
      oldestAsOf: dated[0] ?? null,
    },
  };
}

const DAY = 86_400_000;

function ageOf(source: string, origin: DataAge['origin'], asOf: string | null, now: Date): DataAge {
  const ageDays = asOf
    ? Math.max(0, Math.floor((now.getTime() - Date.parse(`${asOf}T00:00:00Z`)) / DAY))
    : null;
  return { source, origin, asOf, ageDays, stale: ageDays !== null && ageDays > STALE_AFTER_DAYS };
}

let shippedDate: string | null | undefined;
/** The shipped ranges snapshot's date: when it was generated, else its newest vendor file's. */
export function shippedRangesDate(): string | null {
  if (shippedDate !== undefined) return shippedDate;
  try {
    const data = JSON.parse(fs.readFileSync(SHIPPED_RANGES_FILE, 'utf8')) as RangeData;
    const dates = Object.values(data.sources).flatMap((s) => (s?.asOf ? [s.asOf] : []));
    shippedDate = data.generatedAt ?? (dates.sort().at(-1) || null);
  } catch {
    shippedDate = null;
  }
  return shippedDate;
}

/** The age of the catalogue snapshot and of every verification source in use. */
export async function agentDataFreshness(
  db: Kysely<Database>,
  now = new Date(),
): Promise<AgentDataFreshness> {
  const { rows: ranges } = await sql<{ source: string; fetched_on: string }>`
    select source, to_char(fetched_at at time zone 'UTC', 'YYYY-MM-DD') as fetched_on from agent_ip_ranges`.execute(
    db,
  );
  const { rows: rdns } = await sql<{ platform: string; fetched_on: string }>`
    select platform, to_char(fetched_at at time zone 'UTC', 'YYYY-MM-DD') as fetched_on from agent_rdns_suffixes`.execute(
    db,
  );
  const shipped = shippedRangesDate();
  const synced = new Map(ranges.map((r) => [r.source, r.fetched_on]));
  const sources: DataAge[] = (Object.keys(IP_RANGE_SOURCES) as IpRangeSourceId[]).map((id) => {
    const fetched = synced.get(id);
    return fetched && (!shipped || fetched >= shipped)
      ? ageOf(id, 'synced', fetched, now)
      : ageOf(id, 'shipped', shipped, now);
  });
  const rdnsSynced = new Map(rdns.map((r) => [r.platform, r.fetched_on]));
  for (const platform of Object.keys(rdnsSuffixesByPlatform())) {
    const fetched = rdnsSynced.get(platform);
    // Shipped suffixes are part of the code (vendors' documentation): dated by the release only.
    sources.push(
      fetched
        ? ageOf(`rdns:${platform}`, 'synced', fetched, now)
        : ageOf(`rdns:${platform}`, 'shipped', null, now),
    );
  }
  const version = readSnapshot().version;
  const shippedOn = /^\d{4}-\d\d-\d\d/.test(version) ? version.slice(0, 10) : null;
  // The catalogue is as fresh as its newest list: the shipped snapshot or the last list synced.
  const { rows: lists } = await sql<{ synced_on: string | null }>`
    select to_char(max(synced_at) at time zone 'UTC', 'YYYY-MM-DD') as synced_on
    from agent_catalogue_sources where location <> 'snapshot'`.execute(db);
  const syncedOn = lists[0]?.synced_on ?? null;
  const catalogue = {
    ...(syncedOn && (!shippedOn || syncedOn > shippedOn)
      ? ageOf('catalogue', 'synced', syncedOn, now)
      : ageOf('catalogue', 'shipped', shippedOn, now)),
    version,
  };
  return {
    staleAfterDays: STALE_AFTER_DAYS,
    stale: catalogue.stale || sources.some((s) => s.stale),
    catalogue,
    verificationSources: sources,
  };
}
