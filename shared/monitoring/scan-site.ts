import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { DimensionScores } from '../db/tables/monitor-scans.ts';
import type { ScanMode } from '../db/tables/scans.ts';
import { notify } from '../jobs/events.ts';
import type { Logger } from '../logger.ts';
import { monitorAlerts, monitorScans } from '../metrics.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { isGatherError } from '../scan/artifacts.ts';
import type { BrowserProvider } from '../scan/browser.ts';
import type { ModelScore } from '../scan/engine.ts';
import { monitoringModel } from '../scan/models/monitoring.ts';
import { SCAN_MODELS } from '../scan/score.ts';
import { runScan, type ScanOutcome } from '../scans/run-scan.ts';
import { type AlertDraft, decideAlerts, type ScanScores } from './alerts.ts';
import { deliverPendingAlerts } from './deliver.ts';
import { competitorStanding } from './standing.ts';

// One scheduled scan of one monitored site: gather with the scan engine, score the monitoring
// model, record the scan, decide the alerts (own sites only) and send them. Idempotent per
// schedule slot: the job carries the slot it serves, and a re-run after a crash finds the
// slot's row and only finishes sending what that run recorded.

export const monitorTopic = (siteId: string) => `monitor:site:${siteId}`;

export interface MonitorScanDeps {
  db: Kysely<Database>;
  config: Config;
  log: Logger;
  signal: AbortSignal;
  browser: BrowserProvider;
}

type Measured =
  | { status: 'ok'; overall: number; dimensions: DimensionScores; issues: string[] }
  | { status: 'down'; reason: string; code: string };

/** Down means the page could not be fetched: no answer at all, or a server error (5xx). */
function measure(outcome: ScanOutcome): Measured {
  const page = outcome.artifacts.Page;
  if (!page || isGatherError(page)) {
    const e = page && isGatherError(page) ? page.error : { message: 'page not gathered', code: undefined };
    return { status: 'down', reason: e.message, code: e.code ?? 'site_unreachable' };
  }
  if (page.status >= 500)
    return { status: 'down', reason: `the server answered HTTP ${page.status}`, code: 'http_error' };
  const r = outcome.results[monitoringModel.id] as ModelScore;
  const dimensions: DimensionScores = {};
  const issues: string[] = [];
  for (const d of r.dimensions) {
    if (d.id === 'competitor') continue;
    dimensions[d.id] = d.score ?? 0;
    if (d.score === null) issues.push(`${d.name} could not be assessed on this page`);
    issues.push(...d.issues);
  }
  return { status: 'ok', overall: r.overallScore, dimensions, issues };
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

const newScanId = () => `sc_${randomBytes(12).toString('base64url')}`;

export async function monitorSite(
  deps: MonitorScanDeps,
  job: { siteId: string; dueAt: Date },
): Promise<'scanned' | 'already_scanned' | 'skipped'> {
  const { db, config, log } = deps;
  const site = await db
    .selectFrom('monitored_sites as m')
    .innerJoin('subscriptions as s', (j) =>
      j.onRef('s.account_id', '=', 'm.account_id').on('s.status', '=', 'active'),
    )
    .select(['m.id', 'm.account_id', 'm.url', 'm.site_type', 'm.status'])
    .where('m.id', '=', job.siteId)
    .executeTakeFirst();
  if (site?.status !== 'active') {
    log.info({ siteId: job.siteId }, 'monitored site gone, paused or without a subscription: not scanned');
    return 'skipped';
  }
  const done = await db
    .selectFrom('monitor_scans')
    .select('id')
    .where('site_id', '=', site.id)
    .where('due_at', '=', job.dueAt)
    .executeTakeFirst();
  if (done) {
    await deliverPendingAlerts(db, config, log, site.id);
    return 'already_scanned';
  }

  const mode: ScanMode = config.MONITOR_SCAN_MODE;
  const deadline = AbortSignal.any([
    deps.signal,
    AbortSignal.timeout(mode === 'full' ? config.SCAN_FULL_DEADLINE_MS : config.SCAN_QUICK_DEADLINE_MS),
  ]);
  const startedAt = new Date();
  const outcome = await runScan(new URL(site.url), mode, {
    policy: createUrlPolicy(config.SCAN_ALLOW_HOSTS),
    browser: deps.browser,
    signal: deadline,
    log: (msg) => log.debug({ siteId: site.id }, msg),
    // Scored with the scan models too, so the stored scan serves the other views; checks run once.
    models: [...SCAN_MODELS, monitoringModel.id],
  });
  if (deps.signal.aborted) throw new Error('worker shutting down: the scan is left to the retry');
  const measured = measure(outcome);
  const competitors = site.site_type === 'own' ? await competitorScores(db, site.account_id) : [];

  const recorded = await db.transaction().execute(async (trx) => {
    // One writer per site at a time: alert decisions read the scans before this one.
    const row = await trx
      .selectFrom('monitored_sites')
      .select(['id', 'url', 'label', 'site_type', 'alert_threshold', 'incident_baseline', 'webhook_url'])
      .where('id', '=', site.id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return null;
    const previous = await trx
      .selectFrom('monitor_scans')
      .select(['status', 'overall_score', 'dimension_scores'])
      .where('site_id', '=', site.id)
      .orderBy('scanned_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const lastOk =
      previous?.status === 'ok'
        ? previous
        : await trx
            .selectFrom('monitor_scans')
            .select(['status', 'overall_score', 'dimension_scores'])
            .where('site_id', '=', site.id)
            .where('status', '=', 'ok')
            .orderBy('scanned_at', 'desc')
            .orderBy('id', 'desc')
            .limit(1)
            .executeTakeFirst();

    const scanId = newScanId();
    await trx
      .insertInto('scans')
      .values({
        id: scanId,
        url: site.url,
        domain: new URL(site.url).hostname,
        mode,
        status: measured.status === 'ok' ? 'done' : 'failed',
        account_id: site.account_id,
        error: JSON.stringify(
          measured.status === 'down' ? { code: measured.code, message: measured.reason } : null,
        ),
        artifacts: JSON.stringify(outcome.artifacts),
        results: JSON.stringify(outcome.results),
      })
      .execute();
    await trx
      .updateTable('scans')
      .set({ started_at: startedAt, finished_at: sql<Date>`now()` })
      .where('id', '=', scanId)
      .execute();

    const dimensions: DimensionScores = measured.status === 'ok' ? { ...measured.dimensions } : zeroScores();
    if (measured.status === 'ok' && row.site_type === 'own') {
      const standing = competitorStanding(measured.overall, competitors);
      if (standing !== null) dimensions.competitor = standing;
    }
    const scan = await trx
      .insertInto('monitor_scans')
      .values({
        site_id: site.id,
        due_at: job.dueAt,
        scan_id: scanId,
        status: measured.status,
        overall_score: measured.status === 'ok' ? measured.overall : 0,
        dimension_scores: JSON.stringify(dimensions),
        issues: JSON.stringify(
          measured.status === 'ok' ? measured.issues : [`The page could not be fetched: ${measured.reason}`],
        ),
        error: JSON.stringify(
          measured.status === 'down' ? { code: measured.code, message: measured.reason } : null,
        ),
        model_version: monitoringModel.version,
      })
      .onConflict((oc) => oc.columns(['site_id', 'due_at']).doNothing())
      .returning(['id', 'scanned_at'])
      .executeTakeFirst();
    if (!scan) return null; // another run recorded this slot first

    let alerts: AlertDraft[] = [];
    let incidentBaseline = row.incident_baseline;
    if (row.site_type === 'own') {
      const decision = decideAlerts({
        site: {
          label: row.label,
          alertThreshold: row.alert_threshold,
          incidentBaseline: row.incident_baseline,
        },
        previous: previous ? { status: previous.status, overall: previous.overall_score } : null,
        lastOk: lastOk ? scores(lastOk) : null,
        current:
          measured.status === 'ok'
            ? { status: 'ok', overall: measured.overall, dimensions: measured.dimensions }
            : { status: 'down', reason: measured.reason },
      });
      alerts = decision.alerts;
      incidentBaseline = decision.incidentBaseline;
    }
    if (alerts.length) {
      await trx
        .insertInto('monitor_alerts')
        .values(
          alerts.map((a) => ({
            site_id: site.id,
            monitor_scan_id: scan.id,
            alert_type: a.type,
            dimension: a.dimension,
            previous_score: a.previousScore,
            current_score: a.currentScore,
            delta: a.delta,
            message: a.message,
            scanned_at: scan.scanned_at,
            delivery_status: row.webhook_url ? ('pending' as const) : ('no_webhook' as const),
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    await trx
      .updateTable('monitored_sites')
      .set({ last_scanned_at: scan.scanned_at, incident_baseline: incidentBaseline })
      .where('id', '=', site.id)
      .execute();
    await notify(trx, monitorTopic(site.id));
    return { alerts, hasWebhook: row.webhook_url !== null };
  });
  if (!recorded) return 'already_scanned';
  monitorScans.inc({ site_type: site.site_type, outcome: measured.status });
  if (!recorded.hasWebhook)
    for (const a of recorded.alerts) monitorAlerts.inc({ type: a.type, delivery: 'no_webhook' });
  log.info(
    {
      siteId: site.id,
      url: site.url,
      status: measured.status,
      overall: measured.status === 'ok' ? measured.overall : null,
      alerts: recorded.alerts.map((a) => a.type),
    },
    'monitor scan recorded',
  );
  await deliverPendingAlerts(db, config, log, site.id);
  return 'scanned';
}

const zeroScores = (): DimensionScores =>
  Object.fromEntries(monitoringModel.dimensions.filter((d) => d.id !== 'competitor').map((d) => [d.id, 0]));

const scores = (s: { overall_score: number; dimension_scores: DimensionScores }): ScanScores => ({
  overall: s.overall_score,
  dimensions: s.dimension_scores,
});
