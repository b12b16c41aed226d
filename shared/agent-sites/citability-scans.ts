import { sql } from 'kysely';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import type { Scan, ScanMode } from '../db/tables/scans.ts';
import { notFound } from '../errors.ts';
import { getScan, requestScanIn } from '../scans/scans.ts';
import type { Services } from '../services.ts';
import { latestScans } from './sites.ts';

// On-demand citability scans of a registered B site, through the one scan engine path: a scans
// row and its scan_url job, written in one transaction with the site's b_site_scans record. One
// pending scan per site: while the site's last requested scan is queued or running, another
// request joins it instead of starting a second.

export interface SiteScanRequest {
  scan: Scan;
  /** False when an earlier request's scan was still pending and is returned instead. */
  started: boolean;
}

export async function requestSiteScan(
  services: Services,
  site: AgentSite,
  mode: ScanMode,
): Promise<SiteScanRequest> {
  return services.db.transaction().execute(async (trx) => {
    // One request per site at a time decides whether a scan is pending.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`b_site_scan:${site.id}`}, 13))`.execute(trx);
    const pending = await trx
      .selectFrom('b_site_scans as b')
      .innerJoin('scans as s', 's.id', 'b.scan_id')
      .selectAll('s')
      .where('b.site_id', '=', site.id)
      .where('b.trigger', '=', 'on_demand')
      .where('s.status', 'in', ['queued', 'running'])
      .orderBy('b.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (pending) return { scan: pending, started: false };
    const scan = await requestScanIn(trx, services.config, {
      url: new URL(site.url),
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

/** A scan of the site (by id), for polling the Location of an on-demand request. */
export async function siteScan(services: Pick<Services, 'db'>, site: AgentSite, scanId: string) {
  const scan = await getScan(services, scanId);
  if (!scan || scan.url !== site.url) throw notFound(`No scan ${scanId} of site ${site.id}.`);
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
