import { type Kysely, sql } from 'kysely';
import { refreshVerificationSources } from '../agent-verification/sources-sync.ts';
import { CONFIDENCE, rdnsDomains, settleRdns, type Verifier } from '../agent-verification/verify.ts';
import type { Database } from '../db/database.ts';
import type { Verification } from '../db/tables/agent-traffic.ts';
import { addJob } from '../jobs/queue.ts';
import { rollupDeltaCtes } from './rollup-deltas.ts';

// Settles the visits ingestion stored as `pending` (reverse DNS needed, sql/034) and re-checks the
// `unverified` ones whose retry is due. Each distinct (agent, address) is looked up once, a few at
// a time, and its verdict kept in agent_rdns_checks: a definite one (`rdns`, `spoofed`) is reused
// for a day, a failed one (`unverified`: timeout, resolver failure) is asked again after a back-off
// (1 minute, doubling, at most a day). The events of a pair and their hourly and daily rollups
// move to the verdict in one statement, so /stats always adds up to the events stored; an event
// is moved by exactly one statement however many of these run (the update re-checks its
// verification under the row lock).

/** How long a definite verdict is reused before a new look-up. */
const VERDICT_TTL_S = 86_400;
/** First retry of a failed look-up; doubles with each failure, at most VERDICT_TTL_S. */
const RETRY_BASE_S = 60;

type Verdict = Extract<Verification, 'rdns' | 'spoofed' | 'unverified'>;

interface DuePair {
  agent: string;
  platform: string;
  ip: string;
  /** A verdict still valid (definite and fresh, or a failure before its retry): no look-up. */
  cached: Verdict | null;
}

export interface VerifyPendingResult {
  pairs: number;
  lookedUp: number;
  moved: number;
  verdicts: Record<Verdict, number>;
}

/**
 * Pairs with pending events (with any verdict still valid for them), then pairs whose failed
 * look-up is due for a retry (from agent_rdns_checks, so the unverified events, which may be
 * many, are never scanned to find work).
 */
async function duePairs(db: Kysely<Database>, limit: number): Promise<DuePair[]> {
  const { rows: pending } = await sql<DuePair>`
    with e as (
      select agent, min(platform) as platform, ip from agent_events where verification = 'pending'
      group by agent, ip order by agent, ip limit ${limit}
    )
    select e.agent, e.platform, host(e.ip) as ip,
      case
        when c.verdict <> 'unverified' and c.checked_at > now() - make_interval(secs => ${VERDICT_TTL_S}) then c.verdict
        when c.verdict = 'unverified' and c.retry_at > now() then c.verdict
      end as cached
    from e left join agent_rdns_checks c on c.agent = e.agent and c.ip = e.ip`.execute(db);
  if (pending.length >= limit) return pending;
  const { rows: retries } = await sql<DuePair>`
    select agent, platform, host(ip) as ip, null as cached from agent_rdns_checks
    where verdict = 'unverified' and retry_at <= now() order by retry_at limit ${limit - pending.length}`.execute(
    db,
  );
  const seen = new Set(pending.map((p) => `${p.agent}|${p.ip}`));
  return [...pending, ...retries.filter((r) => !seen.has(`${r.agent}|${r.ip}`))];
}

/** Runs fn over items, at most `n` at a time. */
async function inPool<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, run));
  return out;
}

async function lookUp(verifier: Verifier, p: DuePair): Promise<Verdict> {
  const domains = rdnsDomains(p.agent, p.platform);
  if (!domains || !verifier.rdns) return 'unverified';
  try {
    return settleRdns(await verifier.rdns.check(p.ip, domains));
  } catch {
    return 'unverified';
  }
}

/**
 * Records the verdicts of the pairs looked up, and moves the pairs' pending (and, for a definite
 * verdict, unverified) events and their rollups to the verdict. Returns the events moved.
 */
async function settle(
  db: Kysely<Database>,
  pairs: { agent: string; platform: string; ip: string; verdict: Verdict; lookedUp: boolean }[],
): Promise<number> {
  const col = <K extends keyof (typeof pairs)[number]>(k: K) => pairs.map((p) => p[k]);
  const { rows } = await sql<{ moved: number }>`
    with p as (
      select * from unnest(${col('agent')}::text[], ${col('platform')}::text[], ${col('ip')}::inet[],
        ${col('verdict')}::text[], ${pairs.map((p) => CONFIDENCE[p.verdict])}::real[], ${col('lookedUp')}::bool[])
        as p(agent, platform, ip, verdict, confidence, looked_up)
    ), checks as (
      insert into agent_rdns_checks as c (agent, ip, platform, verdict, attempts, checked_at, retry_at)
      select agent, ip, platform, verdict, 1, now(),
        case when verdict = 'unverified' then now() + make_interval(secs => ${RETRY_BASE_S}) end
      from p where looked_up order by agent, ip
      on conflict (agent, ip) do update set
        verdict = excluded.verdict, checked_at = now(),
        attempts = case when excluded.verdict = 'unverified' and c.verdict = 'unverified' then c.attempts + 1 else 1 end,
        retry_at = case when excluded.verdict = 'unverified' then now() + make_interval(secs => least(
          ${VERDICT_TTL_S}, ${RETRY_BASE_S} * power(2, case when c.verdict = 'unverified' then c.attempts else 0 end))) end
    ), from_pending as (
      update agent_events e set verification = p.verdict, confidence = p.confidence
      from p where e.agent = p.agent and e.ip = p.ip and e.verification = 'pending'
      returning e.site_id, e.time, e.path, e.status, e.platform, e.agent, e.type, p.verdict as verification,
        e.platform as old_platform, e.agent as old_agent, e.type as old_type, 'pending'::text as old_verification
    ), from_unverified as (
      update agent_events e set verification = p.verdict, confidence = p.confidence
      from p where e.agent = p.agent and e.ip = p.ip and e.verification = 'unverified' and p.verdict <> 'unverified'
      returning e.site_id, e.time, e.path, e.status, e.platform, e.agent, e.type, p.verdict as verification,
        e.platform as old_platform, e.agent as old_agent, e.type as old_type, 'unverified'::text as old_verification
    ), moved as (
      select * from from_pending union all select * from from_unverified
    ), ${rollupDeltaCtes({ pages: false })}
    select count(*)::int as moved from moved`.execute(db);
  return rows[0]?.moved ?? 0;
}

/** settle, sent again when it deadlocks with an ingest batch upserting the same rollup rows. */
async function settleRetrying(db: Kysely<Database>, pairs: Parameters<typeof settle>[1]): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await settle(db, pairs);
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
    }
  }
}

/**
 * Verifies pending visits until none is due (or `signal` aborts): rounds of up to `batch`
 * distinct (agent, address) pairs, `concurrency` look-ups at a time.
 */
export async function verifyPendingVisits(
  db: Kysely<Database>,
  verifier: Verifier,
  opts: { concurrency: number; batch?: number; signal?: AbortSignal },
): Promise<VerifyPendingResult> {
  const result: VerifyPendingResult = {
    pairs: 0,
    lookedUp: 0,
    moved: 0,
    verdicts: { rdns: 0, spoofed: 0, unverified: 0 },
  };
  // Without reverse DNS here (AGENT_VERIFY_RDNS=false) pending visits wait for a process with it.
  if (!verifier.rdns) return result;
  await refreshVerificationSources(db, verifier.ranges); // synced reverse-DNS suffixes, once a minute
  for (;;) {
    if (opts.signal?.aborted) break;
    const due = await duePairs(db, opts.batch ?? 500);
    if (due.length === 0) break;
    const verdicts = await inPool(due, opts.concurrency, async (p) =>
      p.cached ? p.cached : lookUp(verifier, p),
    );
    const pairs = due.map((p, i) => ({
      agent: p.agent,
      platform: p.platform,
      ip: p.ip,
      verdict: verdicts[i]!,
      lookedUp: !p.cached,
    }));
    result.moved += await settleRetrying(db, pairs);
    result.pairs += due.length;
    for (const p of pairs) {
      if (p.lookedUp) result.lookedUp++;
      result.verdicts[p.verdict]++;
    }
  }
  return result;
}

export const VERIFY_TASK = 'verify_agent_visits';
let lastRequest = 0;

/**
 * Queues the verify_agent_visits job a few seconds ahead (one job at a time: a job key), at most
 * every few seconds per process. The cron runs it every minute as well, so a request lost to a
 * database hiccup only delays the verdicts.
 */
export function requestVerification(db: Kysely<Database>): void {
  const now = Date.now();
  if (now - lastRequest < 5_000) return;
  lastRequest = now;
  addJob(
    db,
    VERIFY_TASK,
    {},
    { jobKey: VERIFY_TASK, jobKeyMode: 'preserve_run_at', runAt: new Date(now + 2_000) },
  ).catch(() => {
    lastRequest = 0;
  });
}
