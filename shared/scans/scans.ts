import { randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Scan, ScanMode } from '../db/tables/scans.ts';
import { AppError } from '../errors.ts';
import { addJob } from '../jobs/queue.ts';
import { NetError } from '../net/net-error.ts';
import { assertUrlAllowed, createUrlPolicy, normalizeTargetUrl, type UrlPolicy } from '../net/url-policy.ts';
import type { Services } from '../services.ts';

// Scans are jobs: the API writes the row and its job in one transaction, then waits (bounded) for
// the worker's completion signal. The same URL and mode scanned within the TTL is served from the
// stored result, and a scan already queued or running is joined rather than repeated.

export const scanTopic = (id: string) => `scan:${id}`;
const newScanId = () => `sc_${randomBytes(12).toString('base64url')}`;

let cachedPolicy: { allow: string; policy: UrlPolicy } | undefined;
export function urlPolicy(services: Pick<Services, 'config'>): UrlPolicy {
  const allow = services.config.SCAN_ALLOW_HOSTS;
  if (cachedPolicy?.allow !== allow) cachedPolicy = { allow, policy: createUrlPolicy(allow) };
  return cachedPolicy.policy;
}

/** Normalises and vets a target URL as the API receives it (400 invalid_url / url_not_allowed). */
export async function vetTargetUrl(
  services: Pick<Services, 'config'>,
  input: string,
  field = 'url',
): Promise<URL> {
  const url = normalizeTargetUrl(input, field);
  try {
    await assertUrlAllowed(url, urlPolicy(services), field);
  } catch (err) {
    if (err instanceof NetError) {
      throw new AppError(400, 'invalid_url', 'Invalid URL', `${url.hostname} could not be resolved.`, {
        errors: [{ field, message: 'host does not resolve' }],
      });
    }
    throw err;
  }
  return url;
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
  const recent = await trx
    .selectFrom('scans')
    .selectAll()
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
                eb('finished_at', '>', sql<Date>`now() - make_interval(secs => ${ttl})`),
              ]),
            ]),
      ]),
    )
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (recent) return recent;
  const scan = await trx
    .insertInto('scans')
    .values({ id: newScanId(), url, domain: req.url.hostname, mode: req.mode, account_id: req.accountId })
    .returningAll()
    .executeTakeFirstOrThrow();
  await addJob(trx, 'scan_url', { scanId: scan.id }, { jobKey: `scan:${scan.id}`, maxAttempts: 2 });
  return scan;
}

export async function getScan(services: Pick<Services, 'db'>, id: string): Promise<Scan | undefined> {
  return services.db.selectFrom('scans').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Waits for the scan to finish, up to waitMs; returns its latest state either way. */
export async function awaitScan(services: Services, scan: Scan, waitMs: number): Promise<Scan> {
  if (scan.status === 'done' || scan.status === 'failed' || waitMs <= 0) return scan;
  const finished = await services.events.waitFor(
    scanTopic(scan.id),
    async () => {
      const s = await getScan(services, scan.id);
      return s && (s.status === 'done' || s.status === 'failed') ? s : undefined;
    },
    waitMs,
  );
  return finished ?? (await getScan(services, scan.id)) ?? scan;
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

/** Body of a 202 answer: where and how to poll. */
export function pendingBody(scan: Scan, location: string) {
  return {
    id: scan.id,
    status: scan.status as 'queued' | 'running',
    phase: scan.phase,
    url: scan.url,
    mode: scan.mode,
    poll: location,
  };
}
