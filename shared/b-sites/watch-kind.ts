import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import { toJsonb } from '../db/json.ts';
import type { BDimensionScores } from '../db/tables/b-sites.ts';
import { bSiteAlerts, bSiteScans } from '../metrics.ts';
import type { ModelScore } from '../scan-engine/engine.ts';
import { agentReadabilityModel } from '../scan-engine/models/agent-readability.ts';
import { SCAN_MODELS } from '../scan-engine/score.ts';
import type { ScanOutcome } from '../scans/gather-and-score.ts';
import type { AlertDraft, WatchCurrent, WatchScores } from '../watch/alerts.ts';
import { type PageDown, pageDown } from '../watch/page-down.ts';
import { recordAlerts } from '../watch/record-alerts.ts';
import { decideThresholdAlerts } from '../watch/rules/thresholds.ts';
import type { RecordedSlot, WatchKind } from '../watch/scan-slot.ts';
import { alertEndpointsFor, endpointSubject } from '../webhooks/endpoints.ts';

// What a registered site of a B optimisation-tier account is to the scheduled watch
// (watch/scan-slot.ts): scanned weekly in B_SITES_SCAN_MODE, scored with the scan models (the
// agent-readability model's scores are compared), its alerts decided per alert endpoint by that
// endpoint's thresholds and sent to the endpoint, signed with the endpoint's own secret.

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

interface RegisteredSite {
  id: string;
  account_id: string;
  url: string;
  label: string;
}

/** The site, while its account is a B account on the optimisation tier. */
async function eligibleSite(db: Kysely<Database>, siteId: string): Promise<RegisteredSite | undefined> {
  const site = await db
    .selectFrom('agent_sites as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.id', 's.account_id', 's.url', 's.label', 'a.variant', 'a.tier'])
    .where('s.id', '=', siteId)
    .executeTakeFirst();
  return site?.variant === 'B' && site.tier === 'optimisation' ? site : undefined;
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

/**
 * Decides and records, for each alert endpoint of the site, the threshold alerts of one recorded
 * slot, and keeps the endpoint's open metrics.
 */
async function raise(
  trx: Transaction<Database>,
  slot: RecordedSlot<RegisteredSite, Measured, unknown, WatchScores | null>,
) {
  const { site, measured } = slot;
  const current: WatchCurrent =
    measured.status === 'ok' ? measured : { status: 'down', reason: measured.reason };
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
      previous: slot.before,
      current,
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
    await recordAlerts(trx, slot.scan, { agent_site_id: site.id, webhook_id: endpoint.id }, decision.alerts);
    raised.push(...decision.alerts);
  }
  return { alerts: raised, unsent: false };
}

export const registeredSiteWatch: WatchKind<RegisteredSite, Measured, unknown, WatchScores | null> = {
  name: 'scheduled site scan',
  skipped: 'registered site gone or not on the optimisation tier: not scanned',
  outbox: {
    name: 'B threshold alert',
    site: 'agent_site_id',
    dedupePrefix: 'b:',
    subject: (_siteId, endpointId) => endpointSubject(endpointId),
    counted: (type, delivery) => bSiteAlerts.inc({ type, delivery }),
  },
  load: eligibleSite,
  mode: (config) => config.B_SITES_SCAN_MODE,
  models: SCAN_MODELS,
  measure: measureB,
  lock: (trx, site) =>
    trx.selectFrom('agent_sites').select('id').where('id', '=', site.id).forUpdate().executeTakeFirst(),
  before: (trx, site) => previousScores(trx, site.id),
  columns: async (_trx, { measured }) => ({
    trigger: 'scheduled',
    overall_score: measured.status === 'ok' ? measured.overall : null,
    dimension_scores: toJsonb(measured.status === 'ok' ? measured.dimensions : null),
  }),
  raise,
  counted: (_site, measured) => bSiteScans.inc({ outcome: measured.status }),
};
