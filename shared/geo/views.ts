import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { GeoCheckRow, GeoRun, GeoRunKind } from '../db/tables/geo.ts';
import { AppError } from '../errors.ts';
import { getSite } from '../monitoring/sites.ts';
import type { Services } from '../services.ts';
import { requireGeoPlan } from './access.ts';
import { availableProviders } from './answer-engines/index.ts';
import { shareOfVoiceView, visibilityView } from './results.ts';
import { latestCheck } from './site-checks.ts';
import { latestRun, noEngines, runAnswers } from './visibility-runs.ts';

// Read side of GEO for a monitored site: the latest run of each kind, the latest check, and the
// paginated history of both, each with its stored evidence.

export function requireEngines(services: Pick<Services, 'config'>): void {
  if (availableProviders(services.config).length === 0) throw noEngines();
}

export function checkView(row: GeoCheckRow) {
  return {
    ...(row.result as object),
    checkId: Number(row.id),
    scanId: row.scan_id,
    checkedAt: row.checked_at.toISOString(),
  };
}

async function previousDone(db: Kysely<Database>, run: GeoRun): Promise<GeoRun | undefined> {
  return db
    .selectFrom('geo_runs')
    .selectAll()
    .where('site_id', '=', run.site_id)
    .where('kind', '=', run.kind)
    .where('status', '=', 'done')
    .where('created_at', '<', run.created_at)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function presentRun(db: Kysely<Database>, run: GeoRun) {
  const answers = await runAnswers(db, run.id);
  if (run.kind === 'sov') {
    const check = await latestCheck(db, run.site_id);
    return shareOfVoiceView(run, answers, check?.grade ?? null);
  }
  const prev = run.status === 'done' ? await previousDone(db, run) : undefined;
  return visibilityView(
    run,
    answers,
    prev ? { run: prev, answers: await runAnswers(db, prev.id) } : undefined,
  );
}

export async function latestRunView(services: Services, accountId: string, siteId: number, kind: GeoRunKind) {
  await requireGeoPlan(services.db, accountId);
  const site = await getSite(services.db, accountId, siteId);
  requireEngines(services);
  const run = await latestRun(services.db, site.id, kind);
  if (!run) {
    const what = kind === 'sov' ? 'share-of-voice' : 'visibility';
    const path = kind === 'sov' ? 'geo-sov/run' : 'visibility/run';
    throw new AppError(
      404,
      'not_run_yet',
      'Not run yet',
      `Site ${siteId} has no ${what} run yet: start one with POST /api/v1/geo/sites/${siteId}/${path}.`,
    );
  }
  return presentRun(services.db, run);
}

export async function latestView(services: Services, accountId: string, siteId: number) {
  await requireGeoPlan(services.db, accountId);
  const site = await getSite(services.db, accountId, siteId);
  const check = await latestCheck(services.db, site.id);
  const vis = await latestRun(services.db, site.id, 'visibility', ['done']);
  const sov = await latestRun(services.db, site.id, 'sov', ['done']);
  const visView = vis ? await presentRun(services.db, vis) : null;
  const sovView = sov ? await presentRun(services.db, sov) : null;
  return {
    siteId: Number(site.id),
    url: site.url,
    check: check ? checkView(check) : null,
    citability: check ? { ...(check.citability as object), checkedAt: check.checked_at.toISOString() } : null,
    visibility:
      visView && 'citationRate' in visView
        ? {
            runId: visView.runId,
            finishedAt: visView.finishedAt,
            platform: visView.platform,
            citedCount: visView.citedCount,
            totalPrompts: visView.totalPrompts,
            answers: visView.answers,
            citedAnswers: visView.citedAnswers,
            citationRate: visView.citationRate,
            interval: visView.interval,
            change: visView.change,
          }
        : null,
    shareOfVoice:
      sovView && 'yourRank' in sovView
        ? {
            runId: sovView.runId,
            finishedAt: sovView.finishedAt,
            ownCitationRate: sovView.ownSite.citationRate,
            yourRank: sovView.yourRank,
            gapToLeader: sovView.gapToLeader,
          }
        : null,
  };
}

/** Past checks and runs of a site, newest first, page by page (each with its evidence). */
export async function historyView(
  services: Services,
  accountId: string,
  siteId: number,
  page: number,
  perPage: number,
) {
  await requireGeoPlan(services.db, accountId);
  const site = await getSite(services.db, accountId, siteId);
  const { rows } = await sql<{ type: 'check' | 'run'; id: string; at: Date; total: number }>`
    select type, id, at, count(*) over ()::int as total from (
      select 'check' as type, id::text as id, checked_at as at from geo_checks where site_id = ${site.id}::bigint
      union all
      select 'run' as type, id, created_at as at from geo_runs where site_id = ${site.id}::bigint
    ) h
    order by at desc, id desc
    limit ${perPage} offset ${(page - 1) * perPage}`.execute(services.db);
  const items = [];
  for (const r of rows) {
    if (r.type === 'check') {
      const row = await services.db
        .selectFrom('geo_checks')
        .selectAll()
        .where('id', '=', r.id)
        .executeTakeFirstOrThrow();
      items.push({
        type: 'check' as const,
        at: r.at.toISOString(),
        check: checkView(row),
        citability: row.citability as object,
      });
    } else {
      const run = await services.db
        .selectFrom('geo_runs')
        .selectAll()
        .where('id', '=', r.id)
        .executeTakeFirstOrThrow();
      items.push({ type: run.kind, at: r.at.toISOString(), run: await presentRun(services.db, run) });
    }
  }
  const total = rows[0]?.total ?? (page === 1 ? 0 : await countHistory(services.db, site.id));
  return { siteId: Number(site.id), page, perPage, total, items };
}

async function countHistory(db: Kysely<Database>, siteId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select (select count(*) from geo_checks where site_id = ${siteId}::bigint)
         + (select count(*) from geo_runs where site_id = ${siteId}::bigint) as n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
