import { type Kysely, sql } from 'kysely';
import type { AccessRule } from '../accounts/admission.ts';
import type { Database } from '../db/database.ts';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import type { Scan, ScanMode } from '../db/tables/scans.ts';
import { badRequest, notFound } from '../errors.ts';
import { getScan, requestScanIn } from '../scans/scans.ts';
import type { Services } from '../services.ts';
import { latestScans } from './sites.ts';

// On-demand citability scans of a registered B site (its address, or one page of it), through the
// one scan engine path: a scans row and its scan_url job, written in one transaction with the
// site's b_site_scans record. One pending scan per site and address: while the last requested scan
// of that address is queued or running, another request joins it instead of starting a second.

/**
 * Who may start a scan of a registered site: a variant B key of any tier over REST, or a signed-in
 * B person in the console (counted in the account's bucket at its tier's limit), the one rule both doors admit by.
 */
export const SITE_SCAN_ACCESS: Extract<AccessRule, { kind: 'key' }> = { kind: 'key', variants: ['B'] };

export interface SiteScanRequest {
  scan: Scan;
  /** False when an earlier request's scan was still pending and is returned instead. */
  started: boolean;
}

/**
 * The address a scan of the site covers: the site's own, or the page at `path` on its origin (a
 * path that would leave the origin, such as `//other.example/`, is refused).
 */
export function siteScanUrl(site: Pick<AgentSite, 'url'>, path?: string): URL {
  const base = new URL(site.url);
  if (path === undefined || path === '') return base;
  const url = new URL(path, base);
  if (!path.startsWith('/') || url.origin !== base.origin)
    throw badRequest('The page must be a path on the site, such as /pricing.', [
      { field: 'body.path', message: 'a path starting with / on the site' },
    ]);
  url.hash = '';
  return url;
}

/** The last requested on-demand scan of this address of the site while it is queued or running. */
function pendingScanOf(db: Kysely<Database>, site: AgentSite, url: URL): Promise<Scan | undefined> {
  return db
    .selectFrom('b_site_scans as b')
    .innerJoin('scans as s', 's.id', 'b.scan_id')
    .selectAll('s')
    .where('b.site_id', '=', site.id)
    .where('b.trigger', '=', 'on_demand')
    .where('s.url', '=', url.toString())
    .where('s.status', 'in', ['queued', 'running'])
    .orderBy('b.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The site's on-demand scan of its address still queued or running, if any (a new request would join it). */
export function pendingSiteScan(services: Pick<Services, 'db'>, site: AgentSite): Promise<Scan | undefined> {
  return pendingScanOf(services.db, site, new URL(site.url));
}

export async function requestSiteScan(
  services: Services,
  site: AgentSite,
  mode: ScanMode,
  path?: string,
): Promise<SiteScanRequest> {
  const url = siteScanUrl(site, path);
  return services.db.transaction().execute(async (trx) => {
    // One request per site at a time decides whether a scan is pending.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`b_site_scan:${site.id}`}, 13))`.execute(trx);
    const pending = await pendingScanOf(trx, site, url);
    if (pending) return { scan: pending, started: false };
    const scan = await requestScanIn(trx, services.config, {
      url,
      mode,
      accountId: site.account_id,
      fresh: true,
    });
    await trx
      .insertInto('watch_scans')
      .values({ agent_site_id: site.id, trigger: 'on_demand', scan_id: scan.id })
      .execute();
    return { scan, started: true };
  });
}

/**
 * A scan of the site (by id), for polling the Location of an on-demand request: any scan of the
 * site's address, or a scan of one of its pages requested for this site.
 */
export async function siteScan(services: Pick<Services, 'db'>, site: AgentSite, scanId: string) {
  const scan = await getScan(services, scanId);
  const ours =
    scan &&
    (scan.url === site.url ||
      (await services.db
        .selectFrom('b_site_scans')
        .select('id')
        .where('site_id', '=', site.id)
        .where('scan_id', '=', scan.id)
        .executeTakeFirst()) !== undefined);
  if (!ours) throw notFound(`No scan ${scanId} of site ${site.id}.`);
  return scan;
}

/**
 * The newest finished agent-readability scan of the site's URL: on-demand, scheduled, or any
 * other scan of the same URL (the same rule as GET /api/v1/sites' lastScanAt and overallScore).
 */
export async function latestSiteScan(
  services: Pick<Services, 'db'>,
  site: AgentSite,
): Promise<Scan | undefined> {
  const summary = (await latestScans(services.db, [site])).get(site.id);
  if (!summary?.scanId) return undefined;
  return getScan(services, summary.scanId);
}
