import { performance } from 'node:perf_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { toJsonb } from '../db/json.ts';
import type { BDimensionScores } from '../db/tables/b-sites.ts';
import type { ScanMode } from '../db/tables/scans.ts';
import type { Logger } from '../logger.ts';
import { bSiteScans } from '../metrics.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import type { BrowserProvider } from '../scan-engine/browser.ts';
import type { ModelScore } from '../scan-engine/engine.ts';
import { agentReadabilityModel } from '../scan-engine/models/agent-readability.ts';
import { SCAN_MODELS } from '../scan-engine/score.ts';
import { runScan, type ScanOutcome, scanDeadlineMs } from '../scans/gather-and-score.ts';
import { insertFinishedScan } from '../scans/scans.ts';
import { type AlertDraft, slotLogFields, type WatchCurrent, type WatchScores } from '../watch/alerts.ts';
import { deliverPendingAlerts } from '../watch/deliver.ts';
import { type PageDown, pageDown } from '../watch/page-down.ts';
import { recordAlerts } from '../watch/record-alerts.ts';
import { decideThresholdAlerts } from '../watch/rules/thresholds.ts';
import { alertEndpointsFor } from '../webhooks/endpoints.ts';
import { bSiteOutbox } from './deliver.ts';

// One scheduled (weekly) scan of one registered B site: gather and score with the scan engine,
// store the scan, record the slot, decide each alert endpoint's threshold alerts and send them.
// Idempotent per slot: the job carries the Monday it serves, and a re-run after a crash finds
// the slot's row and only finishes sending what that run recorded.

export interface BSiteScanDeps {
  db: Kysely<Database>;
  config: Config;
  log: Logger;
  signal: AbortSignal;
  browser: BrowserProvider;
}

type Measured = ({ status: 'ok' } & WatchScores) | PageDown;

/**
 * Down means the page could not be fetched: no answer at all, or a server error (5xx). A dimension
 * the model did not score (null: an error page has no content to grade) is absent from the
 * scores, so it can neither drop nor recover.
 */
export function measureB(outcome: ScanOutcome): Measured {
  const down = pageDown(outcome, 500);
  if (down) return down;
  const r = outcome.results[agentReadabilityModel.id] as ModelScore;
  const dimensions: BDimensionScores = {};
  for (const d of r.dimensions) if (d.score !== null) dimensions[d.id] = d.score;
  return { status: 'ok', overall: r.overallScore, dimensions };
}

export async function scanBSiteScheduled(
  deps: BSiteScanDeps,
  job: { siteId: string; dueAt: Date },
): Promise<'scanned' | 'already_scanned' | 'skipped'> {
  const { db, config, log } = deps;
  const site = await db
    .selectFrom('agent_sites as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.id', 's.account_id', 's.url', 's.label', 'a.variant', 'a.tier'])
    .where('s.id', '=', job.siteId)
    .executeTakeFirst();
  if (site?.variant !== 'B' || site.tier !== 'optimisation') {
    log.info({ siteId: job.siteId }, 'registered site gone or not on the optimisation tier: not scanned');
    return 'skipped';
  }
  const done = await db
    .selectFrom('b_site_scans')
    .select('id')
    .where('site_id', '=', site.id)
    .where('due_at', '=', job.dueAt)
    .executeTakeFirst();
  if (done) {
    await deliverPendingAlerts({ db, config, log }, bSiteOutbox, site.id);
    return 'already_scanned';
  }

  const mode: ScanMode = config.B_SITES_SCAN_MODE;
  const deadline = AbortSignal.any([deps.signal, AbortSignal.timeout(scanDeadlineMs(config, mode))]);
  const started = performance.now();
  const outcome = await runScan(new URL(site.url), mode, {
    policy: createUrlPolicy(config.SCAN_ALLOW_HOSTS),
    browser: deps.browser,
    signal: deadline,
    log: (msg) => log.debug({ siteId: site.id }, msg),
    models: SCAN_MODELS,
  });
  if (deps.signal.aborted) throw new Error('worker shutting down: the scan is left to the retry');
  const measured = measureB(outcome);

  const recorded = await db.transaction().execute(async (trx) => {
    // One writer per site at a time: alert decisions read the scans before this one.
    const row = await trx
      .selectFrom('agent_sites')
      .select(['id'])
      .where('id', '=', site.id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return null;
    const before = await previousScores(trx, site.id);

    const { id: scanId, finishedAt: scannedAt } = await insertFinishedScan(trx, {
      url: site.url,
      mode,
      accountId: site.account_id,
      elapsedMs: performance.now() - started,
      error: measured.status === 'down' ? { code: measured.code, message: measured.reason } : null,
      artifacts: outcome.artifacts,
      results: outcome.results,
    });
    const slot = await trx
      .insertInto('watch_scans')
      .values({
        agent_site_id: site.id,
        trigger: 'scheduled',
        due_at: job.dueAt,
        scan_id: scanId,
        status: measured.status,
        overall_score: measured.status === 'ok' ? measured.overall : null,
        dimension_scores: toJsonb(measured.status === 'ok' ? measured.dimensions : null),
      })
      .onConflict((oc) => oc.columns(['agent_site_id', 'due_at']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!slot) return null; // another run recorded this slot first

    const current: WatchCurrent =
      measured.status === 'ok' ? measured : { status: 'down', reason: measured.reason };
    const raised = await raiseEndpointAlerts(trx, site, {
      id: slot.id,
      scannedAt,
      previous: before,
      current,
    });
    return { alerts: raised };
  });
  if (!recorded) return 'already_scanned';
  bSiteScans.inc({ outcome: measured.status });
  log.info(slotLogFields(site, measured, recorded.alerts), 'scheduled site scan recorded');
  await deliverPendingAlerts({ db, config, log }, bSiteOutbox, site.id);
  return 'scanned';
}

/**
 * Decides and records, for each alert endpoint of the site, the threshold alerts of one recorded
 * slot, and keeps the endpoint's open metrics. Runs inside the slot's transaction.
 */
async function raiseEndpointAlerts(
  trx: Transaction<Database>,
  site: { id: string; account_id: string; label: string },
  slot: { id: string; scannedAt: Date; previous: WatchScores | null; current: WatchCurrent },
): Promise<AlertDraft[]> {
  const raised: AlertDraft[] = [];
  for (const endpoint of await alertEndpointsFor(trx, site.account_id, site.id)) {
    const open = await trx
      .selectFrom('webhook_open_alerts')
      .select('metric')
      .where('webhook_id', '=', endpoint.id)
      .where('site_id', '=', site.id)
      .execute();
    const decision = decideThresholdAlerts(agentReadabilityModel, {
      label: site.label,
      thresholds: endpoint.threshold,
      previous: slot.previous,
      current: slot.current,
      open: open.map((o) => o.metric),
    });
    await trx
      .deleteFrom('webhook_open_alerts')
      .where('webhook_id', '=', endpoint.id)
      .where('site_id', '=', site.id)
      .where('metric', 'not in', decision.open.length ? decision.open : [''])
      .execute();
    if (decision.open.length)
      await trx
        .insertInto('webhook_open_alerts')
        .values(
          decision.open.map((metric) => ({
            webhook_id: endpoint.id,
            site_id: site.id,
            metric,
            threshold: endpoint.threshold[metric] ?? null,
          })),
        )
        .onConflict((oc) => oc.columns(['webhook_id', 'site_id', 'metric']).doNothing())
        .execute();
    if (decision.alerts.length === 0) continue;
    await recordAlerts(
      trx,
      { id: slot.id, scannedAt: slot.scannedAt },
      { agent_site_id: site.id, webhook_id: endpoint.id },
      decision.alerts,
    );
    raised.push(...decision.alerts);
  }
  return raised;
}

/** Scores of the site's last scheduled scan that fetched the page, or null. */
async function previousScores(trx: Transaction<Database>, siteId: string): Promise<WatchScores | null> {
  const previous = await trx
    .selectFrom('b_site_scans')
    .select(['overall_score', 'dimension_scores'])
    .where('site_id', '=', siteId)
    .where('trigger', '=', 'scheduled')
    .where('status', '=', 'ok')
    .orderBy('due_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return previous?.overall_score != null && previous.dimension_scores
    ? { overall: previous.overall_score, dimensions: previous.dimension_scores }
    : null;
}
