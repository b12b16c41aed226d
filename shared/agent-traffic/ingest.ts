import { hash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { classifyVisit } from '../agent-catalogue/classify-visit.ts';
import { agentIpRanges } from '../agent-verification/ip-data.ts';
import { refreshVerificationSources } from '../agent-verification/sources-sync.ts';
import {
  CONFIDENCE,
  directoryKeyResolver,
  quickVerification,
  RdnsVerifier,
  type Verifier,
  verifyVisit,
} from '../agent-verification/verify.ts';
import { NonceCache, type SignedRequest, verifyWebBotAuth } from '../agent-verification/web-bot-auth.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { AgentSite, Verification } from '../db/tables/agent-traffic.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import type { ParsedRequest } from './log-formats.ts';
import { agentIngestLag, agentRequestsIngested } from './metrics.ts';
import { pageKey } from './page-key.ts';
import { FOLD_AFTER, foldInBackground } from './page-rollups.ts';
import { aiReferral, engine } from './referrals.ts';
import { requestVerification } from './verify-pending.ts';

// The one ingestion pipeline behind both doors (POST /api/v1/collect and `sightline logs
// import`): classify each request, verify the agents, and store agent events, AI referrals,
// rollups and coverage in a few set-based statements per batch. Browsers are never agents; other
// bots and plain human visits are counted and dropped. Each request carries a hash (of the log
// line, or of the normalised collect item), so storing the same request again adds nothing.

/** A request to store: a log line's fields (ParsedRequest), with its identity always set. */
export interface IngestRequest extends ParsedRequest {
  /** Path with query as requested; stored as its page key (pageKey: no query but a feed's). */
  path: string;
  /** Lower-cased names; only collect carries them (Web Bot Auth signatures). */
  headers?: Record<string, string>;
  /**
   * The request's identity. A string (the log line, the normalised collect item) is hashed only
   * if the request is stored: most lines of a log are human visits that are dropped.
   */
  hash: Buffer | string;
}

export interface IngestCounts {
  received: number;
  agents: number;
  stored: number;
  duplicates: number;
  ai_referrals: number;
  humans_ignored: number;
  bots_ignored: number;
  /** Older than the raw-event retention: neither stored nor rolled up (see ingest). */
  expired: number;
  /** Of `stored`, the events waiting for reverse DNS (verify_agent_visits settles them). */
  pending_verification: number;
}

export type IngestSource = 'collect' | 'import';

/** The verifier a process uses: shipped ranges, reverse DNS as configured, key directories through the address policy. */
export function createVerifier(
  config: Pick<
    Config,
    | 'AGENT_VERIFY_RDNS'
    | 'AGENT_RDNS_TIMEOUT_MS'
    | 'AGENT_RDNS_SERVERS'
    | 'SCAN_ALLOW_HOSTS'
    | 'AGENT_IP_RANGES_DIR'
  >,
): Verifier {
  const servers = config.AGENT_RDNS_SERVERS.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    ranges: agentIpRanges(config.AGENT_IP_RANGES_DIR),
    rdns: config.AGENT_VERIFY_RDNS
      ? new RdnsVerifier({ timeoutMs: config.AGENT_RDNS_TIMEOUT_MS, servers })
      : null,
    resolveKey: directoryKeyResolver(createUrlPolicy(config.SCAN_ALLOW_HOSTS)),
    nonces: new NonceCache(),
  };
}

/** A stable 16-byte id of a request: the same input always hashes the same. */
export function requestHash(text: string): Buffer {
  // crypto.hash: the same SHA-256 as createHash, without a Hash object per request.
  return hash('sha256', text, 'buffer').subarray(0, 16);
}

/**
 * requestHash as 32 hex digits: what the batch statement takes (decode(h, 'hex')), so no Buffer
 * and subarray per request is made only for the pg driver to write it as '\\x' plus hex.
 */
const hashHexOf = (r: IngestRequest): string =>
  typeof r.hash === 'string' ? hash('sha256', r.hash, 'hex').slice(0, 32) : r.hash.toString('hex');

// Times within ±2^53 µs of the epoch (years 1685 to 2255) go to Postgres as epoch milliseconds:
// 'epoch' + ms * interval '1 millisecond' is exact there (ms and 1000 * ms are exact doubles),
// and costs neither toISOString in Node nor timestamptz parsing in Postgres. A batch with a time
// outside (a log of odd years) is sent as ISO strings.
const EXACT_MS = 2 ** 53 / 1000;

// Per database handle, the month partitions made (or being made) by this process, by month number.
const partitionsMade = new WeakMap<object, Map<number, Promise<void>>>();

const monthOf = (t: Date) => t.getUTCFullYear() * 12 + t.getUTCMonth();

async function makePartition(db: Kysely<Database>, t: Date): Promise<void> {
  const make = () => sql`select agent_events_partition(${t.toISOString()}::timestamptz)`.execute(db);
  try {
    await make();
  } catch (err) {
    // Two sessions making the same month at once (the first batches of a month, from two
    // processes): agent_events_partition re-checks under its advisory lock, but that look-up can
    // still miss the table the other session has just committed (a cached negative catalog
    // entry), and CREATE TABLE then fails with 42P07 (or 23505 on pg_type): an HTTP 500 from
    // collect under concurrent batches. The table exists by then; asking again in a fresh
    // transaction sees it.
    const code = (err as { code?: string }).code;
    if (code !== '42P07' && code !== '23505') throw err;
    await make();
  }
}

async function ensurePartitions(db: Kysely<Database>, times: Date[]): Promise<void> {
  let made = partitionsMade.get(db);
  if (!made) {
    made = new Map();
    partitionsMade.set(db, made);
  }
  // Concurrent batches of this process share one call per month instead of racing each other.
  const waits = new Set<Promise<void>>();
  let last = Number.NaN;
  for (const t of times) {
    const k = monthOf(t);
    if (k === last) continue;
    last = k;
    let p = made.get(k);
    if (!p) {
      const m = made;
      p = makePartition(db, t).catch((err) => {
        m.delete(k);
        throw err;
      });
      made.set(k, p);
    }
    waits.add(p);
  }
  await Promise.all(waits);
}

// Sites whose last batch in this process held requests already stored (a re-import, a retried
// batch): their next batch is inserted with ON CONFLICT DO NOTHING at once.
const sitesWithDuplicates = new Set<string>();

// Array literals written here rather than by the pg driver, which quotes and escapes every
// element with two regular expressions: the same text for Postgres to read, made in one pass.
/** A text[] literal: each element quoted, with " and \\ escaped; null as NULL. */
function textArray(values: readonly (string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (v.includes('"') || v.includes('\\')) out += `"${v.replace(/["\\]/g, '\\$&')}"`;
    else out += `"${v}"`;
  }
  return `${out}}`;
}

/** An array literal of numbers or of strings that need no quoting (hex digits); null as NULL. */
function plainArray(values: readonly (number | string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += v === null || v === undefined ? 'NULL' : v;
  }
  return `${out}}`;
}

interface AgentRow {
  req: IngestRequest;
  platform: string;
  agent: string;
  type: string;
  verification: Verification;
  confidence: number;
}

export interface IngestOptions {
  /**
   * AGENT_EVENTS_RETENTION_DAYS: requests older than that are counted as `expired` and dropped.
   * Retention deletes raw events and keeps the rollups, and the raw row (its hash) is what makes
   * a request sent again count once: one stored again past the cut-off would be counted twice.
   * null keeps every request (tests).
   */
  retentionDays: number | null;
  coverageSource?: string;
  coverage?: boolean;
  /** Events this process stores for a site before it folds the site's pending page counts. */
  foldAfter?: number;
}

interface Referral {
  req: IngestRequest;
  platform: string;
  host: string;
}

/** Classifies, verifies and stores one batch. */
export async function ingest(
  db: Kysely<Database>,
  site: Pick<AgentSite, 'id' | 'url'>,
  source: IngestSource,
  batch: IngestRequest[],
  verifier: Verifier,
  opts: IngestOptions,
): Promise<IngestCounts> {
  await refreshVerificationSources(db, verifier.ranges); // synced vendor lists, read once a minute
  // Requests past retention go first, before any verification is spent on them.
  const expired = pastRetention(opts.retentionDays);
  const requests = batch.some(expired) ? batch.filter((r) => !expired(r)) : batch;
  const counts: IngestCounts = {
    received: batch.length,
    agents: 0,
    stored: 0,
    duplicates: 0,
    ai_referrals: 0,
    humans_ignored: 0,
    bots_ignored: 0,
    expired: batch.length - requests.length,
    pending_verification: 0,
  };
  const { agents, referrals } = await classifyBatch(requests, site, verifier, counts);
  counts.agents = agents.length;
  counts.ai_referrals = referrals.length;

  // The referrals' statement runs beside the agent events' (other tables, another connection).
  const storingReferrals = referrals.length ? storeReferrals(db, site.id, referrals) : null;
  storingReferrals?.catch(() => {}); // awaited below, after the agent events
  if (agents.length) {
    const { inserted, pending } = await storeAgentEvents(db, site.id, source, agents);
    counts.stored = inserted;
    counts.pending_verification = pending;
    counts.duplicates = agents.length - counts.stored;
    if (counts.duplicates > 0) sitesWithDuplicates.add(site.id);
    else sitesWithDuplicates.delete(site.id);
    if (counts.stored > 0) foldInBackground(db, site.id, counts.stored, opts.foldAfter ?? FOLD_AFTER);
    if (counts.pending_verification > 0) requestVerification(db);
  }
  await storingReferrals;
  if (opts.coverage !== false && requests.length) {
    await recordCoverage(db, site.id, opts.coverageSource ?? source, dayCounts(requests), 'add');
  }
  recordIngestMetrics(source, counts, requests);
  return counts;
}

/**
 * Sorts a batch into agents (verified, or `pending` for reverse DNS), AI referrals, and the
 * humans and other bots that are only counted (in `counts`). Agents end with their final
 * confidence.
 */
async function classifyBatch(
  requests: IngestRequest[],
  site: Pick<AgentSite, 'url'>,
  verifier: Verifier,
  counts: IngestCounts,
): Promise<{ agents: AgentRow[]; referrals: Referral[] }> {
  const agents: AgentRow[] = [];
  const signatures: Promise<void>[] = [];
  const referrals: Referral[] = [];
  const origin = new URL(site.url).origin;
  const signedVisits: Promise<{ req: IngestRequest; agentUrl: string | null }>[] = [];
  const human = (req: IngestRequest) => {
    const ref = aiReferral(req.referer, req.path);
    if (ref) referrals.push({ req, ...ref });
    else counts.humans_ignored++;
  };

  for (const req of requests) {
    const c = classifyVisit(req.userAgent);
    if (c.agent || c.isAi) {
      agents.push(classifiedAgent(req, c, origin, verifier, signatures));
      continue;
    }
    if (c.isBot) {
      counts.bots_ignored++;
      continue;
    }
    // Agents that browse with a browser's user agent (ChatGPT agent, for one) prove themselves
    // with a Web Bot Auth signature: a verified one is an agent, named by its Signature-Agent.
    if (
      req.headers?.['signature-input']?.includes('web-bot-auth') &&
      req.headers.signature &&
      verifier.resolveKey
    ) {
      const resolveKey = verifier.resolveKey;
      signedVisits.push(
        verifyWebBotAuth(
          { method: req.method, url: origin + req.path, headers: req.headers, at: req.time },
          resolveKey,
          verifier.nonces,
        ).then((r) => ({ req, agentUrl: r.ok ? (r.agentUrl ?? '') : null })),
      );
      continue;
    }
    human(req);
  }
  for (const { req, agentUrl } of await Promise.all(signedVisits)) {
    if (agentUrl === null) human(req);
    else agents.push(signedBrowserAgent(req, agentUrl));
  }
  if (signatures.length) await Promise.all(signatures);
  for (const a of agents) {
    // Unverifiable agents keep the classifier's own certainty, capped below the verified levels.
    a.confidence =
      a.verification === 'none' ? Math.min(CONFIDENCE.none, a.confidence) : CONFIDENCE[a.verification];
  }
  return { agents, referrals };
}

/**
 * The row of a request its user agent names as an agent. Verified at once when that needs no
 * network wait; otherwise its verification is pushed onto `pending` and set on the row when done.
 */
function classifiedAgent(
  req: IngestRequest,
  c: ReturnType<typeof classifyVisit>,
  origin: string,
  verifier: Verifier,
  pending: Promise<void>[],
): AgentRow {
  const platform = c.platform ?? 'Other';
  const row: AgentRow = {
    req,
    platform,
    agent: c.agent ?? '',
    type: c.type ?? '',
    verification: 'none',
    confidence: c.confidence, // the classifier's; replaced once verified
  };
  const signed: SignedRequest | null =
    req.headers?.['signature-input'] && req.headers.signature
      ? { method: req.method, url: origin + req.path, headers: req.headers, at: req.time }
      : null;
  const input = { agent: row.agent, platform, ip: req.ip, signed };
  // No network wait here but a signature's key directory (cached): a visit only reverse DNS
  // can verify is stored `pending` and settled by the verify_agent_visits job.
  const quick = quickVerification(verifier, input);
  if (quick) row.verification = quick;
  else
    pending.push(
      verifyVisit(verifier, input).then((v) => {
        row.verification = v;
      }),
    );
  return row;
}

/** The row of a browser-agent visit with a verified Web Bot Auth signature, named by its Signature-Agent host. */
function signedBrowserAgent(req: IngestRequest, agentUrl: string): AgentRow {
  let host = '';
  try {
    host = new URL(agentUrl).hostname;
  } catch {
    // a key resolved without a Signature-Agent URL
  }
  return {
    req,
    platform: engine(host) ?? (host || 'Other'),
    agent: '',
    type: 'browse',
    verification: 'signature',
    confidence: 1,
  };
}

/**
 * A batch's agents with the columns that repeat across it (the user agent and what it was
 * classified as) numbered once per distinct combination: kindRows holds each combination's first
 * row (number = place + 1), kindOf each agent's number. ms is each agent's epoch milliseconds;
 * exactMs whether all of them are within ±EXACT_MS.
 */
function groupKinds(agents: AgentRow[]): {
  kindRows: AgentRow[];
  kindOf: number[];
  ms: number[];
  exactMs: boolean;
} {
  // By user agent, the combinations seen and their numbers.
  const kinds = new Map<string, number[]>();
  const kindRows: AgentRow[] = [];
  const kindOf: number[] = new Array(agents.length);
  const ms: number[] = new Array(agents.length);
  let exactMs = true;
  for (let i = 0; i < agents.length; i++) {
    const a = agents[i]!;
    let ks = kinds.get(a.req.userAgent);
    if (!ks) {
      ks = [];
      kinds.set(a.req.userAgent, ks);
    }
    let k = ks.find((n) => sameKind(kindRows[n - 1]!, a)) ?? 0;
    if (k === 0) {
      kindRows.push(a);
      k = kindRows.length;
      ks.push(k);
    }
    kindOf[i] = k;
    const t = a.req.time.getTime();
    if (!(t >= -EXACT_MS && t <= EXACT_MS)) exactMs = false;
    ms[i] = t;
  }
  return { kindRows, kindOf, ms, exactMs };
}

/** Whether two agent rows of the same user agent share every other per-kind column. */
const sameKind = (a: AgentRow, b: AgentRow): boolean =>
  a.req.method === b.req.method &&
  a.platform === b.platform &&
  a.agent === b.agent &&
  a.type === b.type &&
  a.verification === b.verification &&
  a.confidence === b.confidence;

/**
 * Inserts a batch's agent events and adds them to the hourly, daily and pending page rollups, in
 * one statement; returns how many were new and how many of those await reverse DNS.
 */
async function storeAgentEvents(
  db: Kysely<Database>,
  siteId: string,
  source: IngestSource,
  agents: AgentRow[],
): Promise<{ inserted: number; pending: number }> {
  const times = agents.map((a) => a.req.time);
  await ensurePartitions(db, times);
  const insert = agentEventsInsert(siteId, source, agents);
  // A plain INSERT costs Postgres far less than ON CONFLICT DO NOTHING (no speculative-insertion
  // lock and confirmation record per row). A batch that holds a request already stored fails
  // whole with 23505 (nothing of it stays) and is sent again with ON CONFLICT DO NOTHING, which
  // skips the duplicates; a site whose last batch had duplicates (a re-import) goes straight to
  // that form until a batch stores everything again.
  let skipDuplicates = sitesWithDuplicates.has(siteId);
  let remade = false;
  for (;;) {
    try {
      const { rows } = await insert(skipDuplicates).execute(db);
      return { inserted: rows[0]?.inserted ?? 0, pending: rows[0]?.pending ?? 0 };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === '23505' && !skipDuplicates) {
        skipDuplicates = true;
        continue;
      }
      // A month partition dropped by retention since this process made it: make it again, once.
      if (code !== '23514' || remade) throw err;
      remade = true;
      partitionsMade.delete(db);
      await ensurePartitions(db, times);
    }
  }
}

/**
 * The statement storeAgentEvents runs, with or without ON CONFLICT DO NOTHING. The per-event
 * arrays go as array literals written once (a retry after 23505 sends them again); the per-kind
 * columns go once per combination (groupKinds): fewer and shorter arrays to serialise and parse.
 */
function agentEventsInsert(siteId: string, source: IngestSource, agents: AgentRow[]) {
  const { kindRows, kindOf, ms, exactMs } = groupKinds(agents);
  const onConflict = (skipDuplicates: boolean) => (skipDuplicates ? sql`on conflict do nothing` : sql``);
  const time = exactMs ? sql`timestamptz 'epoch' + t.ms * interval '1 millisecond'` : sql`t.ms::timestamptz`;
  const timeList = exactMs ? plainArray(ms) : textArray(agents.map((a) => a.req.time.toISOString()));
  const hashes = plainArray(agents.map((a) => hashHexOf(a.req)));
  const paths = textArray(agents.map((a) => pageKey(a.req.path)));
  const statuses = plainArray(agents.map((a) => a.req.status));
  const ips = textArray(agents.map((a) => a.req.ip));
  const kindNumbers = plainArray(kindOf);
  return (skipDuplicates: boolean) =>
    sql<{ inserted: number; pending: number }>`
      with input as (
        select ${time} as time, decode(t.hash, 'hex') as hash, c.method, t.path, t.status, t.ip, c.user_agent,
          c.platform, c.agent, c.type, c.verification, c.confidence
        from unnest(
          ${timeList}::${sql.raw(exactMs ? 'int8[]' : 'text[]')},
          ${hashes}::text[],
          ${paths}::text[],
          ${statuses}::int2[],
          ${ips}::inet[],
          ${kindNumbers}::int4[]
        ) as t(ms, hash, path, status, ip, k)
        join unnest(
          ${kindRows.map((a) => a.req.method.slice(0, 16))}::text[],
          ${kindRows.map((a) => a.req.userAgent.slice(0, 1024))}::text[],
          ${kindRows.map((a) => a.platform)}::text[],
          ${kindRows.map((a) => a.agent)}::text[],
          ${kindRows.map((a) => a.type)}::text[],
          ${kindRows.map((a) => a.verification)}::text[],
          ${kindRows.map((a) => a.confidence)}::real[]
        ) with ordinality as c(method, user_agent, platform, agent, type, verification, confidence, k) using (k)
      ), ins as (
        insert into agent_events (site_id, time, hash, source, method, path, status, ip, user_agent, platform, agent, type, verification, confidence)
        select ${siteId}::bigint, time, hash, ${source}, method, path, status, ip, user_agent, platform, agent, type, verification, confidence
        from input
        order by time, hash -- one lock order for concurrent batches that share requests: no deadlock
        ${onConflict(skipDuplicates)}
        returning time, path, status, platform, agent, type, verification
      ), hourly as (
        insert into agent_rollups as r (site_id, hour, platform, agent, type, verification, visits, errors, first_at, last_at)
        select ${siteId}::bigint, date_trunc('hour', time), platform, agent, type, verification,
          count(*), count(*) filter (where status >= 400), min(time), max(time)
        from ins group by 2, 3, 4, 5, 6 order by 2, 3, 4, 5, 6
        on conflict (site_id, hour, platform, agent, type, verification) do update set
          visits = r.visits + excluded.visits, errors = r.errors + excluded.errors,
          first_at = least(r.first_at, excluded.first_at), last_at = greatest(r.last_at, excluded.last_at)
      ), daily as (
        insert into agent_daily_rollups as r (site_id, day, platform, agent, type, verification, visits, errors, first_at, last_at)
        select ${siteId}::bigint, (time at time zone 'UTC')::date, platform, agent, type, verification,
          count(*), count(*) filter (where status >= 400), min(time), max(time)
        from ins group by 2, 3, 4, 5, 6 order by 2, 3, 4, 5, 6
        on conflict (site_id, day, platform, agent, type, verification) do update set
          visits = r.visits + excluded.visits, errors = r.errors + excluded.errors,
          first_at = least(r.first_at, excluded.first_at), last_at = greatest(r.last_at, excluded.last_at)
      ), pending as (
        -- Page and path rollups: appended here, folded in bulk by agent_fold_pages (sql/018).
        insert into agent_page_pending (site_id, day, path, platform, visits, errors, not_found)
        select ${siteId}::bigint, (time at time zone 'UTC')::date, path, platform,
          count(*), count(*) filter (where status >= 400), count(*) filter (where status = 404)
        from ins group by 2, 3, 4
      )
      select count(*)::int as inserted, count(*) filter (where verification = 'pending')::int as pending from ins`;
}

/**
 * Inserts a batch's AI referrals (a request stored before adds nothing) and their daily rollups.
 * Its arrays go as literals written here, like the agent events' (agentEventsInsert).
 */
async function storeReferrals(db: Kysely<Database>, siteId: string, referrals: Referral[]): Promise<void> {
  const exactMs = referrals.every((r) => Math.abs(r.req.time.getTime()) <= EXACT_MS);
  const time = exactMs ? sql`timestamptz 'epoch' + t.ms * interval '1 millisecond'` : sql`t.ms::timestamptz`;
  const times = exactMs
    ? plainArray(referrals.map((r) => r.req.time.getTime()))
    : textArray(referrals.map((r) => r.req.time.toISOString()));
  await sql`
    with ins as (
      insert into ai_referrals (site_id, time, hash, platform, referer_host, path)
      select ${siteId}::bigint, ${time}, decode(t.hash, 'hex'), t.platform, t.host, t.path from unnest(
        ${times}::${sql.raw(exactMs ? 'int8[]' : 'text[]')},
        ${plainArray(referrals.map((r) => hashHexOf(r.req)))}::text[],
        ${textArray(referrals.map((r) => r.platform))}::text[],
        ${textArray(referrals.map((r) => r.host.slice(0, 255)))}::text[],
        ${textArray(referrals.map((r) => pageKey(r.req.path)))}::text[]) as t(ms, hash, platform, host, path)
      on conflict do nothing
      returning time, platform, path
    )
    insert into ai_referral_rollups as r (site_id, day, platform, path, visits)
    select ${siteId}::bigint, (time at time zone 'UTC')::date, platform, path, count(*)
    from ins group by 2, 3, 4 order by 2, 3, 4
    on conflict (site_id, day, platform, path) do update set visits = r.visits + excluded.visits`.execute(db);
}

/** Counts a batch's outcomes by source, and for collect how far behind its newest request is. */
function recordIngestMetrics(source: IngestSource, counts: IngestCounts, requests: IngestRequest[]): void {
  const label = source;
  agentRequestsIngested.inc({ source: label, outcome: 'stored' }, counts.stored);
  agentRequestsIngested.inc({ source: label, outcome: 'duplicate' }, counts.duplicates);
  agentRequestsIngested.inc({ source: label, outcome: 'referral' }, counts.ai_referrals);
  agentRequestsIngested.inc({ source: label, outcome: 'human' }, counts.humans_ignored);
  agentRequestsIngested.inc({ source: label, outcome: 'bot' }, counts.bots_ignored);
  agentRequestsIngested.inc({ source: label, outcome: 'expired' }, counts.expired);
  if (source === 'collect' && requests.length) {
    const newest = Math.max(...requests.map((r) => r.time.getTime()));
    agentIngestLag.observe(Math.max(0, (Date.now() - newest) / 1000));
  }
}

/**
 * Whether a request is past retention: older than the cut-off pruneAgentEvents deletes below (null
 * keeps every request). That one is taken from the database's now(): a pruned request could be
 * stored again only if this clock were behind the database's by more than the time since the prune.
 */
export function pastRetention(
  retentionDays: number | null,
  now = Date.now(),
): (r: { time: Date }) => boolean {
  const cutoff = retentionDays === null ? Number.NEGATIVE_INFINITY : now - retentionDays * 86_400_000;
  return (r) => r.time.getTime() < cutoff;
}

export function dayCounts(requests: { time: Date }[]): Map<string, number> {
  // Counted by UTC day number and named once per day, not by a toISOString per request.
  const byDay = new Map<number, number>();
  for (const r of requests) {
    const d = Math.floor(r.time.getTime() / 86_400_000);
    byDay.set(d, (byDay.get(d) ?? 0) + 1);
  }
  const out = new Map<string, number>();
  for (const [d, n] of byDay) out.set(new Date(d * 86_400_000).toISOString().slice(0, 10), n);
  return out;
}

/**
 * Which days have data from which source. `add` (collect) sums the batches; `max` (an import,
 * written once per file with the whole file's counts) keeps the larger count, so importing the
 * same file again changes nothing.
 */
export async function recordCoverage(
  db: Kysely<Database>,
  siteId: string,
  source: string,
  days: Map<string, number>,
  mode: 'add' | 'max',
): Promise<void> {
  if (days.size === 0) return;
  const entries = [...days].sort(([a], [b]) => a.localeCompare(b));
  const merge =
    mode === 'add' ? sql`c.requests + excluded.requests` : sql`greatest(c.requests, excluded.requests)`;
  await sql`
    insert into agent_coverage as c (site_id, day, source, requests)
    select ${siteId}::bigint, t.day, ${source}::text, t.requests
    from unnest(${entries.map(([d]) => d)}::date[], ${entries.map(([, n]) => n)}::bigint[]) as t(day, requests)
    on conflict (site_id, day, source) do update set requests = ${merge}, updated_at = now()`.execute(db);
}
