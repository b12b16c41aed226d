import { randomBytes } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { toJsonb } from '../db/json.ts';
import type { Scan, ScanMode } from '../db/tables/scans.ts';
import { AppError } from '../errors.ts';
import { notify } from '../jobs/events.ts';
import { addJob } from '../jobs/queue.ts';
import { RUN_LOCK, tryRunLock } from '../jobs/run-lock.ts';
import { NetError } from '../net/net-error.ts';
import { createUrlPolicy, normalizeTargetUrl, resolveTargetUrl, type UrlPolicy } from '../net/url-policy.ts';
import type { Services } from '../services.ts';
import { SCAN_MAX_ATTEMPTS, scanJobKey, scanUrlJob } from './jobs.ts';
import { missingArtifacts, partialReasons } from './partial.ts';

// Scans are jobs: the API writes the row and its job in one transaction, then waits (bounded) for
// the worker's completion signal. The same URL and mode scanned within the TTL is served from the
// stored result, and a scan already queued or running is joined rather than repeated.

export const scanTopic = (id: string) => `scan:${id}`;
/** Scan ids are public handles for polling: unguessable. */
export const newScanId = () => `sc_${randomBytes(12).toString('base64url')}`;

let cachedPolicy: { allow: string; policy: UrlPolicy } | undefined;
export function urlPolicy(services: Pick<Services, 'config'>): UrlPolicy {
  const allow = services.config.SCAN_ALLOW_HOSTS;
  if (cachedPolicy?.allow !== allow) cachedPolicy = { allow, policy: createUrlPolicy(allow) };
  return cachedPolicy.policy;
}

/**
 * Normalises and vets a target URL as the API receives it (400 invalid_url / url_not_allowed); a
 * bare host or host:port gets https when it answers TLS, else http.
 */
export async function vetTargetUrl(
  services: Pick<Services, 'config'>,
  input: string,
  field = 'url',
): Promise<URL> {
  const url = normalizeTargetUrl(input, field);
  try {
    // A bare host is tried over https, then http (resolveTargetUrl).
    return await resolveTargetUrl(input, urlPolicy(services), field);
  } catch (err) {
    if (err instanceof NetError) {
      throw new AppError(400, 'invalid_url', 'Invalid URL', `${url.hostname} could not be resolved.`, {
        errors: [{ field, message: 'host does not resolve' }],
      });
    }
    throw err;
  }
}

export interface ScanRequest {
  url: URL;
  mode: ScanMode;
  accountId: string | null;
  /** Skip the TTL cache (a monitor wants a fresh look). */
  fresh?: boolean;
}

/** Finds a reusable scan or creates one with its job. Returns the row as it stands now. */
export async function requestScan(services: Services, req: ScanRequest): Promise<Scan> {
  return services.db.transaction().execute((trx) => requestScanIn(trx, services.config, req));
}

/** requestScan inside the caller's transaction, so its own rows commit with the scan and its job. */
export async function requestScanIn(
  trx: Transaction<Database>,
  config: Pick<Config, 'SCAN_CACHE_TTL_SECONDS'>,
  req: ScanRequest,
): Promise<Scan> {
  const url = req.url.toString();
  const ttl = config.SCAN_CACHE_TTL_SECONDS;
  // Serialise requests for one URL and mode, so concurrent callers join one scan.
  await sql`select pg_advisory_xact_lock(hashtextextended(${`scan:${req.mode}:${url}`}, 11))`.execute(trx);
  // A queued or running candidate whose job is dead is settled failed and passed over (joining it
  // would wait forever); the liveness check costs a query only when there is such a candidate.
  for (;;) {
    const recent = await findReusable(trx, url, req, ttl);
    if (!recent) break;
    if (!(await settleStrandedScan(trx, recent))) return recent;
  }
  const scan = await trx
    .insertInto('scans')
    .values({ id: newScanId(), url, domain: req.url.hostname, mode: req.mode, account_id: req.accountId })
    .returningAll()
    .returning(AGE_MS)
    .executeTakeFirstOrThrow();
  await addJob(
    trx,
    scanUrlJob.name,
    { scanId: scan.id },
    { jobKey: scanJobKey(scan.id), maxAttempts: SCAN_MAX_ATTEMPTS },
  );
  return scan;
}

/** The newest scan of this URL and mode a request may join or reuse: queued or running, or done within the TTL. */
function findReusable(trx: Transaction<Database>, url: string, req: ScanRequest, ttl: number) {
  return trx
    .selectFrom('scans')
    .selectAll()
    .select(AGE_MS)
    .where('url', '=', url)
    .where('mode', '=', req.mode)
    .where((eb) =>
      eb.or([
        eb('status', 'in', ['queued', 'running']),
        ...(req.fresh || ttl === 0
          ? []
          : [
              eb.and([
                eb('status', '=', 'done'),
                // A partial result is never reused: the next caller gets a fresh attempt.
                eb(sql<number>`cardinality(missing_artifacts)`, '=', 0),
                eb('finished_at', '>', sql<Date>`now() - make_interval(secs => ${ttl})`),
              ]),
            ]),
      ]),
    )
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * A queued or running scan whose job can no longer run (gone, or out of attempts and not held by
 * a worker: its last attempt died with its worker or on an unreachable database, and
 * graphile-worker will not try again) would be joined and polled forever. Marks it failed and
 * wakes its waiters, as executeScan's finish does. Only a queued or running row changes, so a
 * worker finishing at the same moment keeps its result, and a scan whose run lock a worker holds
(shared/jobs/run-lock.ts) is live whatever its job row says. Returns whether the job was dead: the
 * caller re-reads the row, settled by this call or by that worker. A job held by a worker that
 * died is released by reap_dead_workers within about a minute, then settled here.
 */
export async function settleStrandedScan(
  db: Kysely<Database>,
  scan: Pick<Scan, 'id' | 'status'>,
): Promise<boolean> {
  if (scan.status !== 'queued' && scan.status !== 'running') return false;
  const { rows } = await sql<{ attempts: number; max_attempts: number; locked: boolean }>`
    select attempts, max_attempts, locked_at is not null as locked
      from graphile_worker.jobs where key = ${scanJobKey(scan.id)}`.execute(db);
  const job = rows[0];
  if (job && (job.locked || job.attempts < job.max_attempts)) return false;
  const settle = async (trx: Kysely<Database>): Promise<boolean> => {
    // A worker holding the scan's run lock is on it (its job row may be between states): live.
    if (!(await tryRunLock(trx, RUN_LOCK.scan, scan.id))) return false;
    const settled = await trx
      .updateTable('scans')
      .set({
        status: 'failed',
        phase: null,
        finished_at: sql<Date>`now()`,
        // Nothing internal: the job's last error stays in graphile_worker.jobs for operators.
        error: toJsonb({
          code: 'scan_failed',
          message: 'The scan could not be completed. Request it again to start a new scan.',
        }),
      })
      .where('id', '=', scan.id)
      .where('status', 'in', ['queued', 'running'])
      .returning('id')
      .executeTakeFirst();
    if (settled) await notify(trx, scanTopic(scan.id));
    return true;
  };
  return db.isTransaction ? settle(db) : db.transaction().execute(settle);
}

/**
 * Stores a scan that ran outside the scan_url job (a monitor scan, a B site's weekly scan) as a
 * finished row, so its result serves the scan views too, flagged partial (and so never reused by
 * the scan cache) as the scan_url job flags its own. Times come from the database clock.
 */
export async function insertFinishedScan(
  trx: Kysely<Database>,
  scan: {
    url: string;
    mode: ScanMode;
    accountId: string | null;
    elapsedMs: number;
    error: { code: string; message: string } | null;
    artifacts: object;
    results: object;
  },
): Promise<{ id: string; finishedAt: Date }> {
  const row = await trx
    .insertInto('scans')
    .values({
      id: newScanId(),
      url: scan.url,
      domain: new URL(scan.url).hostname,
      mode: scan.mode,
      status: scan.error ? 'failed' : 'done',
      account_id: scan.accountId,
      error: toJsonb(scan.error),
      artifacts: toJsonb(scan.artifacts),
      results: toJsonb(scan.results),
      missing_artifacts: scan.error
        ? []
        : missingArtifacts(scan.mode, scan.artifacts as Record<string, unknown>),
      partial_reasons: toJsonb(
        scan.error ? {} : partialReasons(scan.mode, scan.artifacts as Record<string, unknown>),
      ),
      started_at: sql<Date>`now() - make_interval(secs => ${scan.elapsedMs / 1000})`,
      finished_at: sql<Date>`now()`,
    })
    .returning(['id', 'finished_at'])
    .executeTakeFirstOrThrow();
  return { id: row.id, finishedAt: row.finished_at! };
}

/** Every column but the (large) gathered artifacts, which only some views read. */
const SCAN_COLUMNS = [
  'id',
  'url',
  'domain',
  'mode',
  'status',
  'phase',
  'account_id',
  'error',
  'results',
  'missing_artifacts',
  'partial_reasons',
  'created_at',
  'started_at',
  'finished_at',
] as const;

/**
 * A scan row. `artifacts: false` leaves the (large) gathered artifacts out (null), for answers
 * that need only the results, such as a poll. A pending scan whose job is dead comes back failed
 * (settleStrandedScan).
 */
export async function getScan(
  services: Pick<Services, 'db'>,
  id: string,
  opts: { artifacts?: boolean } = {},
): Promise<ScanRow | undefined> {
  const q = services.db.selectFrom('scans').select(AGE_MS).where('id', '=', id);
  const read = async () => {
    if (opts.artifacts ?? true) return q.selectAll().executeTakeFirst();
    const row = await q.select(SCAN_COLUMNS).executeTakeFirst();
    return row && { ...row, artifacts: null };
  };
  const scan = await read();
  // Otherwise a pending scan whose job is dead would answer 202 to its pollers forever.
  return scan && (await settleStrandedScan(services.db, scan)) ? read() : scan;
}

/** Whether the scan has finished, without loading its results (for waiting and polling). */
async function isFinished(services: Pick<Services, 'db'>, id: string): Promise<boolean> {
  const row = await services.db.selectFrom('scans').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status === 'done' || row?.status === 'failed';
}

/** Waits for the scan to finish, up to waitMs; returns its latest state either way. */
export async function awaitScan(
  services: Services,
  scan: Scan,
  waitMs: number,
  opts: { artifacts?: boolean } = {},
): Promise<Scan> {
  const settled = scan.status === 'done' || scan.status === 'failed';
  const wantArtifacts = opts.artifacts ?? true;
  if ((settled && (scan.artifacts !== null || !wantArtifacts)) || waitMs <= 0) return scan;
  if (!settled) {
    await services.events.waitFor(
      scanTopic(scan.id),
      async () => ((await isFinished(services, scan.id)) ? true : undefined),
      waitMs,
    );
  }
  return (await getScan(services, scan.id, { artifacts: wantArtifacts })) ?? scan;
}

/** A scan that could not fetch its target is an error for the caller, not a score of zero. */
export function scanFailure(scan: Scan): AppError {
  const e = scan.error ?? { code: 'scan_failed', message: 'The scan failed.' };
  const status = e.code === 'url_not_allowed' ? 400 : 422;
  return new AppError(
    status,
    e.code,
    status === 400 ? 'URL not allowed' : 'Site could not be scanned',
    e.message,
    { scanId: scan.id },
  );
}

/**
 * A finished scan whose page answered an error status (4xx/5xx): the page views (A, B,
 * citability) answer this problem instead of scores computed from a server's error page.
 * Site-level views (llms.txt) still answer. Null for a content page or a result stored before
 * the status was recorded.
 */
export function targetErrorStatus(scan: Scan): AppError | null {
  if (scan.status !== 'done' || !scan.results) return null;
  const r = Object.values(
    scan.results as Record<string, { pageKind?: string; httpStatus?: number | null }>,
  )[0];
  if (r?.pageKind !== 'error_status') return null;
  return new AppError(
    422,
    'target_error_status',
    'Target page answered an error status',
    `${scan.url} answered HTTP ${r.httpStatus}: that is the server's error page, not content, so it is not scored. Scan a URL that answers 2xx.`,
    { scanId: scan.id, httpStatus: r.httpStatus },
  );
}

/** Milliseconds since the scan was asked for, by the database clock. */
const AGE_MS = sql<number>`floor(extract(epoch from (now() - created_at)) * 1000)::int`.as('age_ms');

/** A scan row as read by this module: with its age when it was read. */
export type ScanRow = Scan & { age_ms?: number };

/** Body of a 202 answer: where and how to poll, the phase the worker is in and the time so far. */
export function pendingBody(scan: ScanRow, location: string) {
  return {
    id: scan.id,
    status: scan.status as 'queued' | 'running',
    phase: scan.phase,
    elapsedMs: scan.age_ms ?? 0,
    url: scan.url,
    mode: scan.mode,
    poll: location,
  };
}
