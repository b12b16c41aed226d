import { performance } from 'node:perf_hooks';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import { toJsonb } from '../db/json.ts';
import type { DimensionScores } from '../db/tables/monitor-scans.ts';
import type { ScanMode } from '../db/tables/scans.ts';
import { notify } from '../jobs/events.ts';
import type { JobContext } from '../jobs/job.ts';
import { monitorAlerts, monitorScans } from '../metrics.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import type { ModelScore } from '../scan-engine/engine.ts';
import { monitoringModel } from '../scan-engine/models/monitoring.ts';
import { SCAN_MODELS } from '../scan-engine/score.ts';
import { runScan, type ScanOutcome, scanDeadlineMs } from '../scans/gather-and-score.ts';
import { insertFinishedScan } from '../scans/scans.ts';
import { type AlertDraft, slotLogFields, type WatchScores } from '../watch/alerts.ts';
import { deliverPendingAlerts } from '../watch/deliver.ts';
import { type PageDown, pageDown } from '../watch/page-down.ts';
import { recordAlerts } from '../watch/record-alerts.ts';
import { decidePointDrops, type PointDropRules } from '../watch/rules/point-drops.ts';
import { monitorOutbox } from './deliver.ts';
import { competitorStanding } from './standing.ts';

// One scheduled scan of one monitored site: gather with the scan engine, score the monitoring
// model, record the scan, decide the alerts (own sites only) and send them. Idempotent per
// schedule slot: the job carries the slot it serves, and a re-run after a crash finds the
// slot's row and only finishes sending what that run recorded.

/** Own sites alert on drops of the monitoring model's scores; the competitor standing never drops. */
const MONITOR_RULES: PointDropRules = { model: monitoringModel, skip: ['competitor'] };

export const monitorTopic = (siteId: string) => `monitor:site:${siteId}`;

export type MonitorScanDeps = JobContext;

export type Measured =
  | { status: 'ok'; overall: number; dimensions: DimensionScores; issues: string[] }
  | PageDown;

/**
 * Down means the page could not be fetched: no answer at all, or an error status (4xx or 5xx: a
 * monitored page that answers 404 is as gone for its visitors as one that answers 503).
 */
export function measure(outcome: ScanOutcome): Measured {
  const down = pageDown(outcome, 400);
  if (down) return down;
  const r = outcome.results[monitoringModel.id] as ModelScore;
  const dimensions: DimensionScores = {};
  // A check shared by two dimensions (the meta description is SEO and copy) says its sentence
  // once: issues are a set, in first-seen order.
  const issues = new Set<string>();
  for (const d of r.dimensions) {
    if (d.id === 'competitor') continue;
    dimensions[d.id] = d.score ?? 0;
    if (d.score === null && !d.notComputed) issues.add(`${d.name} could not be assessed on this page`);
    for (const issue of d.issues) issues.add(issue);
  }
  return { status: 'ok', overall: r.overallScore, dimensions, issues: [...issues] };
}

async function competitorScores(db: Kysely<Database>, accountId: string): Promise<number[]> {
  const { rows } = await sql<{ overall_score: number }>`
    select distinct on (s.site_id) s.overall_score
      from monitor_scans s
      join monitored_sites m on m.id = s.site_id
     where m.account_id = ${accountId} and m.site_type = 'competitor' and s.status = 'ok'
     order by s.site_id, s.scanned_at desc, s.id desc`.execute(db);
  return rows.map((r) => r.overall_score);
}

type SiteRow = {
  id: string;
  account_id: string;
  url: string;
  site_type: 'own' | 'competitor';
  indexnow_key: string | null;
  indexnow_key_location: string | null;
};

/** The site, when it is still active under an active subscription. */
async function activeSite(db: Kysely<Database>, siteId: string): Promise<SiteRow | undefined> {
  const site = await db
    .selectFrom('monitored_sites as m')
    .innerJoin('subscriptions as s', (j) =>
      j.onRef('s.account_id', '=', 'm.account_id').on('s.status', '=', 'active'),
    )
    .select([
      'm.id',
      'm.account_id',
      'm.url',
      'm.site_type',
      'm.status',
      'm.indexnow_key',
      'm.indexnow_key_location',
    ])
    .where('m.id', '=', siteId)
    .executeTakeFirst();
  return site?.status === 'active' ? site : undefined;
}

async function slotRecorded(db: Kysely<Database>, siteId: string, dueAt: Date): Promise<boolean> {
  const row = await db
    .selectFrom('monitor_scans')
    .select('id')
    .where('site_id', '=', siteId)
    .where('due_at', '=', dueAt)
    .executeTakeFirst();
  return row !== undefined;
}

/** The scan engine on the site, under the scan deadline, scored with the monitoring model too. */
async function scanSite(deps: MonitorScanDeps, site: SiteRow, mode: ScanMode): Promise<ScanOutcome> {
  const { config, log } = deps;
  const deadline = AbortSignal.any([deps.signal, AbortSignal.timeout(scanDeadlineMs(config, mode))]);
  const outcome = await runScan(new URL(site.url), mode, {
    policy: createUrlPolicy(config.SCAN_ALLOW_HOSTS),
    browser: deps.browser,
    signal: deadline,
    log: (msg) => log.debug({ siteId: site.id }, msg),
    indexnow: site.indexnow_key
      ? { key: site.indexnow_key, keyLocation: site.indexnow_key_location }
      : undefined,
    // Scored with the scan models too, so the stored scan serves the other views; checks run once.
    models: [...SCAN_MODELS, monitoringModel.id],
  });
  if (deps.signal.aborted) throw new Error('worker shutting down: the scan is left to the retry');
  return outcome;
}

/**
 * The scan before this one (any status) and the latest one of the same scan mode that fetched the
 * page: drops compare like with like (a full scan scores a rendered page a quick one never sees).
 */
async function scansBefore(trx: Transaction<Database>, siteId: string, mode: ScanMode) {
  const latest = (okOfMode?: ScanMode) => {
    let q = trx
      .selectFrom('monitor_scans')
      .select(['status', 'overall_score', 'dimension_scores', 'model_version', 'scan_mode'])
      .where('site_id', '=', siteId);
    if (okOfMode) q = q.where('status', '=', 'ok').where('scan_mode', '=', okOfMode);
    return q.orderBy('scanned_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  };
  const previous = await latest();
  const lastOk = previous?.status === 'ok' && previous.scan_mode === mode ? previous : await latest(mode);
  return { previous, lastOk };
}

interface Recorded {
  alerts: AlertDraft[];
  hasWebhook: boolean;
}

/** Lost the slot to another run: the whole recording rolls back, leaving no orphan scan row. */
class SlotTaken extends Error {}

/**
 * Records one slot in one transaction: the scan (for the other views), the monitor scan, its
 * alerts and the site's incident state. Undefined when another run recorded the slot first.
 */
async function recordSlot(
  db: Kysely<Database>,
  input: {
    site: SiteRow;
    dueAt: Date;
    mode: ScanMode;
    elapsedMs: number;
    outcome: ScanOutcome;
    measured: Measured;
    competitors: number[];
  },
): Promise<Recorded | undefined> {
  const { site, measured } = input;
  try {
    return await db.transaction().execute(async (trx) => {
      // One writer per site at a time: alert decisions read the scans before this one, and a
      // second run for the same slot waits here, then finds the slot taken.
      const row = await trx
        .selectFrom('monitored_sites')
        .select(['id', 'label', 'site_type', 'alert_threshold', 'incident_baseline', 'webhook_endpoint_id'])
        .where('id', '=', site.id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return undefined;
      if (await slotRecorded(trx, site.id, input.dueAt)) return undefined;
      const before = await scansBefore(trx, site.id, input.mode); // read before this scan is stored

      const { id: scanId } = await insertFinishedScan(trx, {
        url: site.url,
        mode: input.mode,
        accountId: site.account_id,
        elapsedMs: input.elapsedMs,
        error: measured.status === 'down' ? { code: measured.code, message: measured.reason } : null,
        artifacts: input.outcome.artifacts,
        results: input.outcome.results,
      });

      const dimensions: DimensionScores =
        measured.status === 'ok' ? { ...measured.dimensions } : zeroScores();
      if (measured.status === 'ok' && row.site_type === 'own') {
        const standing = competitorStanding(measured.overall, input.competitors);
        if (standing !== null) dimensions.competitor = standing;
      }
      const scan = await trx
        .insertInto('watch_scans')
        .values({
          monitored_site_id: site.id,
          due_at: input.dueAt,
          scan_id: scanId,
          status: measured.status,
          overall_score: measured.status === 'ok' ? measured.overall : 0,
          dimension_scores: toJsonb(dimensions),
          issues: toJsonb(
            measured.status === 'ok'
              ? measured.issues
              : [`The page could not be fetched: ${measured.reason}`],
          ),
          error: toJsonb(
            measured.status === 'down' ? { code: measured.code, message: measured.reason } : null,
          ),
          model_version: monitoringModel.version,
          scan_mode: input.mode,
        })
        .onConflict((oc) => oc.columns(['monitored_site_id', 'due_at']).doNothing())
        .returning(['id', 'scanned_at'])
        .executeTakeFirst();
      if (!scan) throw new SlotTaken();

      const decision = decide(row, before, measured);
      await recordAlerts(
        trx,
        { id: scan.id, scannedAt: scan.scanned_at },
        {
          monitored_site_id: site.id,
          delivery_status: row.webhook_endpoint_id !== null ? 'pending' : 'no_webhook',
        },
        decision.alerts,
      );
      await trx
        .updateTable('monitored_sites')
        .set({ last_scanned_at: scan.scanned_at, incident_baseline: decision.incidentBaseline })
        .where('id', '=', site.id)
        .execute();
      await notify(trx, monitorTopic(site.id));
      return { alerts: decision.alerts, hasWebhook: row.webhook_endpoint_id !== null };
    });
  } catch (err) {
    if (err instanceof SlotTaken) return undefined;
    throw err;
  }
}

export async function monitorSite(
  deps: MonitorScanDeps,
  job: { siteId: string; dueAt: Date },
): Promise<'scanned' | 'already_scanned' | 'skipped'> {
  const { db, config, log } = deps;
  const site = await activeSite(db, job.siteId);
  if (!site) {
    log.info({ siteId: job.siteId }, 'monitored site gone, paused or without a subscription: not scanned');
    return 'skipped';
  }
  if (await slotRecorded(db, site.id, job.dueAt)) {
    await deliverPendingAlerts({ db, config, log }, monitorOutbox, site.id); // a re-run finishes what the first recorded
    return 'already_scanned';
  }
  const mode: ScanMode = config.MONITOR_SCAN_MODE;
  const started = performance.now();
  const outcome = await scanSite(deps, site, mode);
  const measured = measure(outcome);
  const competitors = site.site_type === 'own' ? await competitorScores(db, site.account_id) : [];
  const recorded = await recordSlot(db, {
    site,
    dueAt: job.dueAt,
    mode,
    elapsedMs: performance.now() - started,
    outcome,
    measured,
    competitors,
  });
  if (!recorded) return 'already_scanned';
  monitorScans.inc({ site_type: site.site_type, outcome: measured.status });
  if (!recorded.hasWebhook)
    for (const a of recorded.alerts) monitorAlerts.inc({ type: a.type, delivery: 'no_webhook' });
  log.info(slotLogFields(site, measured, recorded.alerts), 'monitor scan recorded');
  await deliverPendingAlerts({ db, config, log }, monitorOutbox, site.id);
  return 'scanned';
}

type Before = Awaited<ReturnType<typeof scansBefore>>;

/** Own sites' alerts by the point-drop rules; a competitor never alerts. */
function decide(
  row: {
    label: string;
    site_type: 'own' | 'competitor';
    alert_threshold: number;
    incident_baseline: number | null;
  },
  { previous, lastOk }: Before,
  measured: Measured,
) {
  if (row.site_type !== 'own') return { alerts: [], incidentBaseline: row.incident_baseline };
  return decidePointDrops(MONITOR_RULES, {
    site: { label: row.label, alertThreshold: row.alert_threshold, incidentBaseline: row.incident_baseline },
    previous: previous ? { status: previous.status, overall: previous.overall_score } : null,
    // Scores of another model version are not comparable (an upgrade that reweighs the dimensions
    // must not raise drops on every site): the down and recovery rules still see them, the drop
    // rules only this version's.
    lastOk: lastOk ? scores(lastOk) : null,
    comparable: lastOk?.model_version === monitoringModel.version,
    current:
      measured.status === 'ok'
        ? { status: 'ok', overall: measured.overall, dimensions: measured.dimensions }
        : { status: 'down', reason: measured.reason },
  });
}

const zeroScores = (): DimensionScores =>
  Object.fromEntries(monitoringModel.dimensions.filter((d) => d.id !== 'competitor').map((d) => [d.id, 0]));

const scores = (s: { overall_score: number; dimension_scores: DimensionScores }): WatchScores => ({
  overall: s.overall_score,
  dimensions: s.dimension_scores,
});
