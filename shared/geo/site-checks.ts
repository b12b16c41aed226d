import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { toJsonb } from '../db/json.ts';
import type { GeoCheckRow } from '../db/tables/geo.ts';
import type { MonitoredSite } from '../db/tables/monitored-sites.ts';
import type { Scan } from '../db/tables/scans.ts';
import { AppError, notFound } from '../errors.ts';
import { scoreCitability } from '../geo-scoring/citability.ts';
import { scoreGeo } from '../geo-scoring/geo-check.ts';
import { getSite } from '../monitoring/sites.ts';
import { type ArtifactSet, isGatherError } from '../scan-engine/artifacts.ts';
import { awaitScan, getScan, requestScan, scanFailure } from '../scans/scans.ts';
import type { Services } from '../services.ts';
import { requireGeoPlan } from './access.ts';
import { seedPrompts } from './seed.ts';

// The GEO check of a monitored site: a scan of the site in quick mode (a job, like every scan),
// then the six-signal check and the citability score computed from its artifacts and stored
// together in geo_checks. `fresh` skips the scan cache (GET .../check); the citability endpoint
// accepts a scan within the cache TTL.

export type CheckOutcome =
  | { kind: 'done'; site: MonitoredSite; row: GeoCheckRow }
  | { kind: 'pending'; site: MonitoredSite; scan: Scan };

export async function checkSite(
  services: Services,
  accountId: string,
  siteId: number,
  opts: { fresh: boolean; scanId?: string; waitMs?: number },
): Promise<CheckOutcome> {
  await requireGeoPlan(services.db, accountId);
  const site = await getSite(services.db, accountId, siteId);
  let scan: Scan;
  if (opts.scanId) {
    const s = await getScan(services, opts.scanId);
    if (!s || s.url !== site.url) throw notFound(`No GEO check scan ${opts.scanId} for site ${siteId}.`);
    scan = s;
  } else {
    scan = await requestScan(services, {
      url: new URL(site.url),
      mode: 'quick',
      accountId,
      fresh: opts.fresh,
    });
  }
  const done = await awaitScan(services, scan, opts.waitMs ?? services.config.GEO_WAIT_MS);
  if (done.status === 'failed') throw scanFailure(done);
  if (done.status !== 'done') return { kind: 'pending', site, scan: done };
  return { kind: 'done', site, row: await recordCheck(services.db, site, done) };
}

/** Scores a finished scan for the site and stores it (once per site and scan). */
export async function recordCheck(
  db: Kysely<Database>,
  site: MonitoredSite,
  scan: Scan,
): Promise<GeoCheckRow> {
  const artifacts = scan.artifacts as ArtifactSet | null;
  if (!artifacts)
    throw new AppError(422, 'scan_incomplete', 'Scan incomplete', `Scan ${scan.id} kept no artifacts.`);
  const check = scoreGeo(artifacts, scan.url);
  const citability = scoreCitability(artifacts, scan.url);
  const inserted = await db
    .insertInto('geo_checks')
    .values({
      site_id: site.id,
      scan_id: scan.id,
      url: scan.url,
      overall_score: check.overallScore,
      grade: check.grade,
      result: toJsonb(check),
      citability: toJsonb(citability),
    })
    .onConflict((oc) => oc.columns(['site_id', 'scan_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return inserted;
  return db
    .selectFrom('geo_checks')
    .selectAll()
    .where('site_id', '=', site.id)
    .where('scan_id', '=', scan.id)
    .executeTakeFirstOrThrow();
}

export async function latestCheck(db: Kysely<Database>, siteId: string): Promise<GeoCheckRow | undefined> {
  return db
    .selectFrom('geo_checks')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy('checked_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Prompts suggested from the site's own page (a quick scan within the cache TTL). */
export async function siteSeedPrompts(services: Services, accountId: string, siteId: number) {
  await requireGeoPlan(services.db, accountId);
  const site = await getSite(services.db, accountId, siteId);
  const scan = await requestScan(services, { url: new URL(site.url), mode: 'quick', accountId });
  const done = await awaitScan(services, scan, services.config.GEO_WAIT_MS);
  if (done.status === 'failed') throw scanFailure(done);
  if (done.status !== 'done') return { kind: 'pending' as const, site, scan: done };
  const page = (done.artifacts as ArtifactSet | null)?.Page;
  if (!page || isGatherError(page)) throw scanFailure(done);
  const label = site.label === new URL(site.url).hostname ? null : site.label;
  return { kind: 'done' as const, site, prompts: seedPrompts(page.html, page.finalUrl, label) };
}
