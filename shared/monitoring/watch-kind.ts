import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import { toJsonb } from '../db/json.ts';
import type { DimensionScores } from '../db/tables/monitor-scans.ts';
import type { ScanMode } from '../db/tables/scans.ts';
import { notify } from '../jobs/events.ts';
import { monitorAlerts, monitorScans } from '../metrics.ts';
import type { ModelScore } from '../scan-engine/engine.ts';
import { monitoringModel } from '../scan-engine/models/monitoring.ts';
import { SCAN_MODELS } from '../scan-engine/score.ts';
import type { ScanOutcome } from '../scans/gather-and-score.ts';
import type { WatchScores } from '../watch/alerts.ts';
import { type PageDown, pageDown } from '../watch/page-down.ts';
import { recordAlerts } from '../watch/record-alerts.ts';
import { decidePointDrops, type PointDropRules } from '../watch/rules/point-drops.ts';
import type { RecordedSlot, WatchKind } from '../watch/scan-slot.ts';
import { competitorStanding } from './standing.ts';

// What a monitored site (A: own and competitor sites) is to the scheduled watch (watch/scan-slot.ts):
// scanned in MONITOR_SCAN_MODE, scored with the monitoring model (and the scan models, so the
// stored scan serves the other views), an own site's alerts decided by the point-drop rules with
// its alert threshold and open incident; a competitor is recorded (it ranks the own sites) and
// never alerts. Alerts go to the webhook endpoint the site points at.

/** Own sites alert on drops of the monitoring model's scores; the competitor standing never drops. */
const MONITOR_RULES: PointDropRules = { model: monitoringModel, skip: ['competitor'] };

export const monitorTopic = (siteId: string) => `monitor:site:${siteId}`;

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

interface MonitoredSite {
  id: string;
  account_id: string;
  url: string;
  site_type: 'own' | 'competitor';
  indexnow_key: string | null;
  indexnow_key_location: string | null;
}

/** The site row as the slot's transaction locks it: what the rules and the outbox need. */
interface LockedSite {
  label: string;
  site_type: 'own' | 'competitor';
  alert_threshold: number;
  incident_baseline: number | null;
  webhook_endpoint_id: string | null;
}

type Before = Awaited<ReturnType<typeof scansBefore>>;

/** The site, when it is still active under an active subscription. */
async function activeSite(db: Kysely<Database>, siteId: string): Promise<MonitoredSite | undefined> {
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

/** The latest overall score of each of the account's competitors that could be fetched. */
async function competitorScores(db: Kysely<Database>, accountId: string): Promise<number[]> {
  const { rows } = await sql<{ overall_score: number }>`
    select distinct on (s.site_id) s.overall_score
      from monitor_scans s
      join monitored_sites m on m.id = s.site_id
     where m.account_id = ${accountId} and m.site_type = 'competitor' and s.status = 'ok'
     order by s.site_id, s.scanned_at desc, s.id desc`.execute(db);
  return rows.map((r) => r.overall_score);
}

/** The monitor scan's scores; an own site's also rank it among its competitors. */
async function slotColumns(
  trx: Transaction<Database>,
  { site, measured }: { site: MonitoredSite; measured: Measured },
) {
  const dimensions: DimensionScores = measured.status === 'ok' ? { ...measured.dimensions } : zeroScores();
  if (measured.status === 'ok' && site.site_type === 'own') {
    const standing = competitorStanding(measured.overall, await competitorScores(trx, site.account_id));
    if (standing !== null) dimensions.competitor = standing;
  }
  return {
    overall_score: measured.status === 'ok' ? measured.overall : 0,
    dimension_scores: toJsonb(dimensions),
    issues: toJsonb(
      measured.status === 'ok' ? measured.issues : [`The page could not be fetched: ${measured.reason}`],
    ),
    model_version: monitoringModel.version,
  };
}

/**
 * Own sites' alerts by the point-drop rules (kept for the status page when the site has no
 * webhook); the site's last scan time and incident state move on, and its watchers are told.
 */
async function raise(
  trx: Transaction<Database>,
  slot: RecordedSlot<MonitoredSite, Measured, LockedSite, Before>,
) {
  const { site, locked, scan } = slot;
  const decision = decide(locked, slot.before, slot.measured);
  const unsent = locked.webhook_endpoint_id === null;
  await recordAlerts(
    trx,
    scan,
    { monitored_site_id: site.id, delivery_status: unsent ? 'no_webhook' : 'pending' },
    decision.alerts,
  );
  await trx
    .updateTable('monitored_sites')
    .set({ last_scanned_at: scan.scannedAt, incident_baseline: decision.incidentBaseline })
    .where('id', '=', site.id)
    .execute();
  await notify(trx, monitorTopic(site.id));
  return { alerts: decision.alerts, unsent };
}

/** A competitor never alerts. */
function decide(row: LockedSite, { previous, lastOk }: Before, measured: Measured) {
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

export const monitoredSiteWatch: WatchKind<MonitoredSite, Measured, LockedSite, Before> = {
  name: 'monitor scan',
  skipped: 'monitored site gone, paused or without a subscription: not scanned',
  outbox: {
    name: 'monitoring alert',
    site: 'monitored_site_id',
    dedupePrefix: '',
    subject: (siteId) => `monitored_site:${siteId}`,
    counted: (type, delivery) => monitorAlerts.inc({ type, delivery }),
  },
  load: activeSite,
  mode: (config) => config.MONITOR_SCAN_MODE,
  models: [...SCAN_MODELS, monitoringModel.id],
  measure,
  lock: (trx, site) =>
    trx
      .selectFrom('monitored_sites')
      .select(['label', 'site_type', 'alert_threshold', 'incident_baseline', 'webhook_endpoint_id'])
      .where('id', '=', site.id)
      .forUpdate()
      .executeTakeFirst(),
  before: (trx, site, mode) => scansBefore(trx, site.id, mode),
  columns: slotColumns,
  raise,
  counted: (site, measured) => monitorScans.inc({ site_type: site.site_type, outcome: measured.status }),
};

const zeroScores = (): DimensionScores =>
  Object.fromEntries(monitoringModel.dimensions.filter((d) => d.id !== 'competitor').map((d) => [d.id, 0]));

const scores = (s: { overall_score: number; dimension_scores: DimensionScores }): WatchScores => ({
  overall: s.overall_score,
  dimensions: s.dimension_scores,
});
