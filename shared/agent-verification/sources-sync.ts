import { readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { type Kysely, sql } from 'kysely';
import type { IpRangeSourceId } from '../agent-catalogue/catalogue.ts';
import type { Database } from '../db/database.ts';
import { badRequest } from '../errors.ts';
import { safeFetch } from '../net/safe-fetch.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import {
  type AgentIpRanges,
  type Cidr,
  IP_RANGE_SOURCES,
  type IpRangeSource,
  parseIpRangeFile,
  rangeFileDate,
} from './ip-ranges.ts';
import { clearRangeCheckCache, setSyncedRdnsSuffixes } from './verify.ts';

// Verification sources synced from files or URLs the operator names (`sightline agents ranges
// sync --from`, and `agents sync --from`): a vendor's IP-range file in the vendor's own format
// (Google's and OpenAI's {creationTime, prefixes: [{ipv4Prefix | ipv6Prefix}]}, Perplexity's
// array of {ip_address, service}, a netset with one CIDR a line), recognised by its file name or
// published URL, or a reverse-DNS suffix file ({"reverseDns": {"<platform>": [".suffix", ...]}}).
// Stored lists (agent_ip_ranges, agent_rdns_suffixes) replace the shipped snapshot's for their
// source in every process (refreshVerificationSources), unless the shipped list is newer.

export interface SourceFile {
  /** The file path or URL it was read from: its name says which vendor list it is. */
  from: string;
  body: string;
  /** The IP_RANGE_SOURCES key, when the name does not say. */
  source?: string;
}

export interface SyncedRanges {
  kind: 'ip-ranges';
  sources: { source: IpRangeSourceId; ranges: number; publishedOn: string | null }[];
}
export interface SyncedRdns {
  kind: 'rdns';
  platforms: { platform: string; suffixes: string[] }[];
}
export type SyncedSource = SyncedRanges | SyncedRdns;

const SOURCE_IDS = Object.keys(IP_RANGE_SOURCES) as IpRangeSourceId[];
const KNOWN_NAMES = [...new Set(SOURCE_IDS.flatMap((id) => IP_RANGE_SOURCES[id].files))].join(', ');

/** The file name of a path or URL (no query). */
function baseName(from: string): string {
  try {
    if (/^https?:\/\//i.test(from)) return path.posix.basename(new URL(from).pathname);
  } catch {
    // not a URL after all
  }
  return path.basename(from);
}

/**
 * Which IP_RANGE_SOURCES a file holds: the one named by `source`, else those publishing a file of
 * its name or at its URL; a combined list (Perplexity's) gives each service it tags.
 */
export function detectIpRangeSources(file: SourceFile): IpRangeSourceId[] {
  if (file.source) {
    if (!(file.source in IP_RANGE_SOURCES))
      throw badRequest(`unknown source ${file.source}: one of ${SOURCE_IDS.join(', ')}`);
    return [file.source as IpRangeSourceId];
  }
  const name = baseName(file.from).toLowerCase();
  const url = file.from.toLowerCase();
  const byName = SOURCE_IDS.filter(
    (id) =>
      IP_RANGE_SOURCES[id].files.some((f) => f.toLowerCase() === name) ||
      IP_RANGE_SOURCES[id].publishedAt.toLowerCase() === url,
  );
  if (byName.length <= 1) return byName;
  // A combined file: only the services it tags.
  const tags = new Set(
    [...file.body.matchAll(/"service"\s*:\s*"([^"]+)"/g)].map((m) => (m[1] ?? '').toLowerCase()),
  );
  return byName.filter((id) => !IP_RANGE_SOURCES[id].service || tags.has(IP_RANGE_SOURCES[id].service!));
}

const isRdnsFile = (body: string): boolean => /^\s*\{[\s\S]*"(?:reverseDns|rdns)"\s*:/.test(body);

/**
 * Whether a file is a verification source (a vendor IP-range file by its name or URL, or a
 * reverse-DNS file) rather than an agent list: how `agents sync --from` picks where a file goes.
 */
export function isVerificationSourceFile(file: SourceFile): boolean {
  return isRdnsFile(file.body) || detectIpRangeSources(file).length > 0;
}

const SUFFIX = /^\.?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** A reverse-DNS suffix file: {"reverseDns": {"Google": [".googlebot.com", ...]}}. */
export function parseRdnsFile(body: string): SyncedRdns['platforms'] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    throw badRequest(`reverse-DNS file is not JSON: ${(err as Error).message}`);
  }
  const o = json as Record<string, unknown>;
  const map = (o.reverseDns ?? o.rdns) as Record<string, unknown> | undefined;
  if (!map || typeof map !== 'object' || Array.isArray(map))
    throw badRequest('reverse-DNS file: expected {"reverseDns": {"<platform>": [".suffix", ...]}}');
  return Object.entries(map).map(([platform, list]) => {
    if (!Array.isArray(list) || !list.every((s) => typeof s === 'string' && SUFFIX.test(s)))
      throw badRequest(
        `reverse-DNS file: ${platform} must be a list of host suffixes such as ".googlebot.com"`,
      );
    return { platform, suffixes: list.map((s: string) => (s.startsWith('.') ? s : `.${s}`).toLowerCase()) };
  });
}

/** The lists a vendor file holds, parsed and checked (a file without one prefix is refused). */
export function parseIpRangeSources(
  file: SourceFile,
): { source: IpRangeSourceId; ranges: string[]; publishedOn: string | null }[] {
  const ids = detectIpRangeSources(file);
  if (ids.length === 0)
    throw badRequest(
      `cannot tell which vendor list ${file.from} is: name the file as the vendor does (${KNOWN_NAMES}) or give its source`,
    );
  let publishedOn: string | null;
  try {
    publishedOn = rangeFileDate(file.from, file.body);
  } catch {
    publishedOn = null;
  }
  return ids.map((source) => {
    let cidrs: Cidr[];
    try {
      cidrs = parseIpRangeFile(file.body, (IP_RANGE_SOURCES[source] as IpRangeSource).service);
    } catch (err) {
      throw badRequest(`${file.from} is not a vendor IP-range file: ${(err as Error).message}`);
    }
    if (cidrs.length === 0) throw badRequest(`${file.from} lists no IP prefixes for ${source}`);
    return { source, ranges: cidrs.map(([a, bits]) => `${a.toString()}/${bits}`), publishedOn };
  });
}

/** Detects, parses and stores one verification source file; this process uses it at once. */
export async function syncVerificationSource(db: Kysely<Database>, file: SourceFile): Promise<SyncedSource> {
  if (isRdnsFile(file.body)) {
    const platforms = parseRdnsFile(file.body);
    for (const p of platforms) {
      await sql`
        insert into agent_rdns_suffixes as r (platform, origin, suffixes)
        values (${p.platform}, ${file.from}, ${p.suffixes}::text[])
        on conflict (platform) do update set origin = excluded.origin, suffixes = excluded.suffixes, fetched_at = now()`.execute(
        db,
      );
      setSyncedRdnsSuffixes(p.platform, p.suffixes);
    }
    return { kind: 'rdns', platforms };
  }
  const lists = parseIpRangeSources(file);
  for (const l of lists) {
    await sql`
      insert into agent_ip_ranges as r (source, origin, ranges, published_on)
      values (${l.source}, ${file.from}, ${l.ranges}::text[], ${l.publishedOn}::date)
      on conflict (source) do update set origin = excluded.origin, ranges = excluded.ranges,
        published_on = excluded.published_on, fetched_at = now()`.execute(db);
  }
  lastRefresh.delete(db); // the next refresh of every verifier in this process reads them
  return {
    kind: 'ip-ranges',
    sources: lists.map((l) => ({ source: l.source, ranges: l.ranges.length, publishedOn: l.publishedOn })),
  };
}

export const REFRESH_EVERY_MS = 60_000;
const lastRefresh = new WeakMap<object, number>();
// Per ranges object, the stored version (fetched_at) of each source already applied to it.
const appliedTo = new WeakMap<AgentIpRanges, Map<string, string>>();

/**
 * Applies the stored sources to a process's ranges and reverse-DNS suffixes: a stored list
 * replaces the one in use unless both are dated and the one in use is newer (a release shipped a
 * later snapshot). Reads the tables at most once a minute per database handle unless `force`.
 */
export async function refreshVerificationSources(
  db: Kysely<Database>,
  ranges: AgentIpRanges,
  opts: { force?: boolean } = {},
): Promise<void> {
  const now = Date.now();
  if (!opts.force && now - (lastRefresh.get(db) ?? 0) < REFRESH_EVERY_MS) return;
  lastRefresh.set(db, now);
  const { rows } = await sql<{
    source: IpRangeSourceId;
    ranges: string[];
    published_on: string | null;
    version: string;
  }>`
    select source, ranges, to_char(published_on, 'YYYY-MM-DD') as published_on, fetched_at::text as version
    from agent_ip_ranges`.execute(db);
  let seen = appliedTo.get(ranges);
  if (!seen) {
    seen = new Map();
    appliedTo.set(ranges, seen);
  }
  let changed = false;
  for (const r of rows) {
    if (!(r.source in IP_RANGE_SOURCES) || seen.get(r.source) === r.version) continue;
    seen.set(r.source, r.version);
    const stored = r.published_on ? new Date(r.published_on) : null;
    const inUse = ranges.publishedAt(r.source);
    if (stored && inUse && stored < inUse) continue;
    const cidrs = r.ranges.flatMap((c) => {
      try {
        return [ipaddr.parseCIDR(c) as Cidr];
      } catch {
        return [];
      }
    });
    if (cidrs.length) {
      ranges.setSource(r.source, cidrs, stored);
      changed = true;
    }
  }
  if (changed) clearRangeCheckCache();
  const { rows: rdns } = await sql<{ platform: string; suffixes: string[] }>`
    select platform, suffixes from agent_rdns_suffixes`.execute(db);
  for (const r of rdns) setSyncedRdnsSuffixes(r.platform, r.suffixes);
}

/** A source file's text: a URL fetched through the address policy (SCAN_ALLOW_HOSTS), else a local file. */
export async function readSourceFile(from: string, opts: { allowHosts: string }): Promise<string> {
  if (!/^https?:\/\//i.test(from)) {
    try {
      return readFileSync(from, 'utf8');
    } catch (err) {
      throw badRequest(
        `cannot read ${from}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  const res = await safeFetch(from, {
    policy: createUrlPolicy(opts.allowHosts),
    timeoutMs: 30_000,
    maxBytes: 32 * 1024 * 1024,
    headers: { accept: 'application/json, text/plain;q=0.9, */*;q=0.1' },
  });
  if (res.status !== 200) throw badRequest(`${from} answered HTTP ${res.status}`);
  if (res.truncated) throw badRequest(`${from} is larger than 32 MB`);
  return res.body.toString('utf8');
}
