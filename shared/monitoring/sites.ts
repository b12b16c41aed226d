import { type Kysely, sql } from 'kysely';
import { activeSubscription } from '../accounts/accounts.ts';
import { hashStatusToken, STATUS_TOKEN_PATTERN } from '../accounts/status-token.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { MonitorAlert } from '../db/tables/monitor-alerts.ts';
import type { MonitorScan } from '../db/tables/monitor-scans.ts';
import type { MonitoredSite, SiteType } from '../db/tables/monitored-sites.ts';
import type { Subscription } from '../db/tables/subscriptions.ts';
import { AppError, badRequest, notFound, quotaExceeded, subscriptionRequired } from '../errors.ts';
import { addJob } from '../jobs/queue.ts';
import { vetTargetUrl } from '../scans/scans.ts';
import type { Services } from '../services.ts';
import { MONITOR_SCAN_ATTEMPTS, MONITOR_SCAN_TASK, monitorJobKey } from './jobs.ts';
import { selectSites, setSiteWebhook } from './site-rows.ts';

// Monitored sites of a subscriber. Every call needs an active subscription; own sites and
// competitors share its quota, checked under a lock on the subscription row so concurrent adds
// cannot overshoot it. A new site is due at once: the next fan-out tick (each minute) scans it.

/** How many scans the status page and the history keep in view per site. */
export const HISTORY_LENGTH = 30;
const RECENT_ALERTS = 10;

/**
 * The public status page of a token. Only the token's hash is stored, so this URL can be built
 * only where the token is at hand: when a subscription is created and when its token is rotated.
 */
export const statusPageUrl = (config: Pick<Config, 'publicSiteUrl'>, token: string) =>
  `${config.publicSiteUrl}/status/${token}`;

export async function requireSubscription(db: Kysely<Database>, accountId: string): Promise<Subscription> {
  const sub = await activeSubscription(db, accountId);
  if (!sub) {
    throw subscriptionRequired(
      'Monitoring needs an active Growth or Agency subscription on this account; none is active.',
    );
  }
  return sub;
}

export async function listSites(services: Services, accountId: string) {
  const subscription = await requireSubscription(services.db, accountId);
  const sites = await selectSites(services.db)
    .where('m.account_id', '=', accountId)
    .orderBy('m.id')
    .execute();
  return { sites, subscription };
}

export interface NewSite {
  url: string;
  label?: string;
  webhookUrl?: string;
  alertThreshold?: number;
  siteType: SiteType;
  indexnowKey?: string;
  indexnowKeyLocation?: string;
}

/** A key file location on the site's own host (IndexNow ignores keys hosted elsewhere), absolute. */
function keyLocation(siteUrl: string, location: string | null | undefined): string | null | undefined {
  if (location === undefined || location === null) return location;
  let resolved: URL;
  try {
    resolved = new URL(location, siteUrl);
  } catch {
    throw badRequest('indexnow_key_location is not a URL or path.', [
      { field: 'body.indexnow_key_location', message: 'not a URL or path' },
    ]);
  }
  if (resolved.host !== new URL(siteUrl).host || !/^https?:$/.test(resolved.protocol))
    throw badRequest(`indexnow_key_location must be on ${new URL(siteUrl).host}.`, [
      { field: 'body.indexnow_key_location', message: 'must be on the site’s host' },
    ]);
  return resolved.toString();
}

const locationNeedsKey = () =>
  badRequest('indexnow_key_location needs an indexnow_key: give one, or declare it first.', [
    { field: 'body.indexnow_key_location', message: 'needs indexnow_key' },
  ]);

/** `storedKey`: the site's key now (null on a new site); a location needs a key, given or kept. */
function keyFields(
  siteUrl: string,
  key: string | null | undefined,
  location: string | null | undefined,
  storedKey: string | null = null,
) {
  if (location && (key === null || (key === undefined && storedKey === null))) throw locationNeedsKey();
  return {
    ...(key !== undefined ? { indexnow_key: key } : {}),
    ...(key === null ? { indexnow_key_location: null } : {}),
    ...(location !== undefined ? { indexnow_key_location: keyLocation(siteUrl, location) } : {}),
  };
}

const defaultLabel = (url: URL) => url.hostname + (url.pathname === '/' ? '' : url.pathname);

export async function addSite(services: Services, accountId: string, input: NewSite): Promise<MonitoredSite> {
  await requireSubscription(services.db, accountId);
  const url = await vetTargetUrl(services, input.url);
  const indexnow = keyFields(url.toString(), input.indexnowKey, input.indexnowKeyLocation);
  const webhookUrl = input.webhookUrl
    ? (await vetTargetUrl(services, input.webhookUrl, 'webhook_url')).toString()
    : null;
  return services.db.transaction().execute(async (trx) => {
    const sub = await trx
      .selectFrom('subscriptions')
      .select(['plan', 'site_quota'])
      .where('account_id', '=', accountId)
      .where('status', '=', 'active')
      .forUpdate()
      .executeTakeFirst();
    if (!sub) throw subscriptionRequired('The monitoring subscription is no longer active.');
    const { used } = await trx
      .selectFrom('monitored_sites')
      .select((eb) => eb.fn.countAll<number>().as('used'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (Number(used) >= sub.site_quota) {
      throw quotaExceeded(
        `The ${sub.plan} plan monitors up to ${sub.site_quota} sites, own sites and competitors together, and all ${sub.site_quota} are in use. Remove one first${sub.plan === 'growth' ? ', or move to the Agency plan (25 sites)' : ''}.`,
      );
    }
    const site = await trx
      .insertInto('monitored_sites')
      .values({
        account_id: accountId,
        url: url.toString(),
        label: input.label ?? defaultLabel(url),
        site_type: input.siteType,
        alert_threshold: input.alertThreshold,
        ...indexnow,
      })
      .onConflict((oc) => oc.columns(['account_id', 'url']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!site) {
      throw new AppError(
        409,
        'site_exists',
        'Site already monitored',
        `${url.toString()} is already monitored by this account.`,
      );
    }
    if (webhookUrl !== null) await setSiteWebhook(trx, site, webhookUrl);
    return getSite(trx, accountId, Number(site.id));
  });
}

/** A site of this account (404 for anyone else's: ids are not secrets, but sites are private). */
export async function getSite(db: Kysely<Database>, accountId: string, id: number): Promise<MonitoredSite> {
  const site = await selectSites(db)
    .where('m.id', '=', String(id))
    .where('m.account_id', '=', accountId)
    .executeTakeFirst();
  if (!site) throw notFound(`No monitored site ${id} on this account.`);
  return site;
}

export interface SitePatch {
  label?: string;
  webhookUrl?: string | null;
  alertThreshold?: number;
  status?: 'active' | 'paused';
  indexnowKey?: string | null;
  indexnowKeyLocation?: string | null;
}

export async function updateSite(services: Services, accountId: string, id: number, patch: SitePatch) {
  await requireSubscription(services.db, accountId);
  const site = await getSite(services.db, accountId, id);
  if (site.site_type === 'competitor' && (patch.webhookUrl || patch.alertThreshold !== undefined)) {
    throw badRequest('Competitor sites never alert: they take no webhook_url or alert_threshold.', [
      {
        field: patch.webhookUrl ? 'body.webhook_url' : 'body.alert_threshold',
        message: 'not for competitor sites',
      },
    ]);
  }
  const webhookUrl =
    patch.webhookUrl === undefined || patch.webhookUrl === null
      ? patch.webhookUrl
      : (await vetTargetUrl(services, patch.webhookUrl, 'webhook_url')).toString();
  const indexnow = keyFields(site.url, patch.indexnowKey, patch.indexnowKeyLocation, site.indexnow_key);
  // A location kept on the stored key: a concurrent PATCH removing that key must not meet the
  // table's check constraint (a 500) but the same 400.
  const onStoredKey = Boolean(patch.indexnowKeyLocation) && patch.indexnowKey === undefined;
  const updated = await services.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('monitored_sites')
      .set({
        ...(patch.label !== undefined ? { label: patch.label } : {}),
        ...(patch.alertThreshold !== undefined ? { alert_threshold: patch.alertThreshold } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...indexnow,
        // Resuming a paused site makes it due at once: the next fan-out tick scans it.
        ...(patch.status === 'active' && site.status === 'paused'
          ? { next_scan_due_at: sql<Date>`now()` }
          : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', site.id)
      .$if(onStoredKey, (q) => q.where('indexnow_key', 'is not', null))
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    if (webhookUrl !== undefined) await setSiteWebhook(trx, row, webhookUrl);
    return getSite(trx, accountId, id);
  });
  if (updated) return updated;
  // No row: the site was removed meanwhile (getSite answers 404), or its key was.
  await getSite(services.db, accountId, id);
  throw locationNeedsKey();
}

export interface SiteScanRequest {
  site: MonitoredSite;
  /** The slot the scan records (epoch ms): the time it was asked for. */
  dueAt: number;
  /** queued: a new job; pending: a scan of this site was already waiting or running (no new one). */
  state: 'queued' | 'pending';
}

/**
 * A monitoring scan of one site now, beside its schedule. One pending scan per site: while a
 * scan of the site (asked for or scheduled) waits or runs, asking again adds nothing. The check
 * and the enqueue happen under a lock on the site row, so concurrent asks add one job.
 */
export async function requestSiteScan(
  services: Services,
  accountId: string,
  id: number,
): Promise<SiteScanRequest> {
  await requireSubscription(services.db, accountId);
  const site = await getSite(services.db, accountId, id);
  if (site.status === 'paused') {
    throw new AppError(
      409,
      'site_paused',
      'Site paused',
      `Site ${id} is paused; resume it (PATCH status: active) to scan it.`,
    );
  }
  return services.db.transaction().execute(async (trx) => {
    await trx.selectFrom('monitored_sites').select('id').where('id', '=', site.id).forUpdate().execute();
    const pending = await sql<{ due_at: string | null }>`
      select (payload->>'dueAt') as due_at
        from graphile_worker._private_jobs
       where key = ${monitorJobKey(site.id)} and attempts < max_attempts`.execute(trx);
    if (pending.rows[0]) return { site, dueAt: Number(pending.rows[0].due_at), state: 'pending' as const };
    const { rows } = await sql<{
      now: string;
    }>`select floor(extract(epoch from now()) * 1000)::bigint as now`.execute(trx);
    const dueAt = Number(rows[0]!.now);
    await addJob(
      trx,
      MONITOR_SCAN_TASK,
      { siteId: site.id, dueAt },
      { jobKey: monitorJobKey(site.id), maxAttempts: MONITOR_SCAN_ATTEMPTS },
    );
    return { site, dueAt, state: 'queued' as const };
  });
}

/** Removes the site with its scans and alerts, and its pending scan job. */
export async function removeSite(services: Services, accountId: string, id: number): Promise<void> {
  await requireSubscription(services.db, accountId);
  const site = await getSite(services.db, accountId, id);
  await services.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('monitored_sites').where('id', '=', site.id).execute();
    await sql`select graphile_worker.remove_job(${monitorJobKey(site.id)})`.execute(trx);
  });
}

async function latestScans(db: Kysely<Database>, siteIds: string[]): Promise<Map<string, MonitorScan>> {
  if (siteIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('monitor_scans')
    .selectAll()
    .distinctOn('site_id')
    .where('site_id', 'in', siteIds)
    .orderBy('site_id')
    .orderBy('scanned_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return new Map(rows.map((r) => [r.site_id, r]));
}

export async function latestScan(
  services: Services,
  accountId: string,
  siteId: number,
): Promise<MonitorScan> {
  await requireSubscription(services.db, accountId);
  const site = await getSite(services.db, accountId, siteId);
  const scan = (await latestScans(services.db, [site.id])).get(site.id);
  if (!scan) {
    throw new AppError(
      404,
      'not_scanned_yet',
      'Not scanned yet',
      `Site ${siteId} has not been scanned yet; its first scan is due at ${site.next_scan_due_at.toISOString()}.`,
    );
  }
  return scan;
}

export async function compareSites(services: Services, accountId: string, siteId: number) {
  await requireSubscription(services.db, accountId);
  const own = await getSite(services.db, accountId, siteId);
  if (own.site_type !== 'own') {
    throw badRequest(`Site ${siteId} is a competitor; compare takes one of your own sites.`, [
      { field: 'params.siteId', message: 'not an own site' },
    ]);
  }
  const competitors = await selectSites(services.db)
    .where('m.account_id', '=', accountId)
    .where('m.site_type', '=', 'competitor')
    .orderBy('m.id')
    .execute();
  const scans = await latestScans(services.db, [own.id, ...competitors.map((c) => c.id)]);
  return { own, competitors, scans };
}

export interface StatusPageData {
  now: Date;
  plan: string;
  scanFrequency: 'daily' | 'weekly';
  sites: { site: MonitoredSite; history: MonitorScan[] }[]; // history oldest first, latest last
  /** The latest alerts of those sites, newest first, with their site's address and label. */
  alerts: (Pick<
    MonitorAlert,
    'alert_type' | 'dimension' | 'previous_score' | 'current_score' | 'delta' | 'message' | 'scanned_at'
  > & { siteId: string; url: string; label: string })[];
}

/** Everything the public status page shows, or undefined for an unknown (or ended) subscription. */
export async function statusPageData(
  db: Kysely<Database>,
  token: string,
): Promise<StatusPageData | undefined> {
  if (!STATUS_TOKEN_PATTERN.test(token)) return undefined;
  const sub = await db
    .selectFrom('subscriptions')
    .select(['account_id', 'plan', 'scan_frequency', sql<Date>`now()`.as('now')])
    .where('status_token_hash', '=', hashStatusToken(token))
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (!sub) return undefined;
  const sites = await selectSites(db)
    .where('m.account_id', '=', sub.account_id)
    .where('m.site_type', '=', 'own')
    .orderBy('m.id')
    .execute();
  const ids = sites.map((s) => s.id);
  const history =
    ids.length === 0
      ? []
      : await db
          .selectFrom((eb) =>
            eb
              .selectFrom('monitor_scans')
              .selectAll()
              .select(
                sql<number>`row_number() over (partition by site_id order by scanned_at desc, id desc)`.as(
                  'n',
                ),
              )
              .where('site_id', 'in', ids)
              .as('h'),
          )
          .selectAll()
          .where('n', '<=', HISTORY_LENGTH)
          .orderBy('scanned_at')
          .orderBy('id')
          .execute();
  const alerts =
    ids.length === 0
      ? []
      : await db
          .selectFrom('monitor_alerts as a')
          .innerJoin('monitored_sites as m', 'm.id', 'a.site_id')
          .select([
            'a.site_id as siteId',
            'm.url',
            'm.label',
            'a.alert_type',
            'a.dimension',
            'a.previous_score',
            'a.current_score',
            'a.delta',
            'a.message',
            'a.scanned_at',
          ])
          .where('a.site_id', 'in', ids)
          .orderBy('a.created_at', 'desc')
          .orderBy('a.id', 'desc')
          .limit(RECENT_ALERTS)
          .execute();
  return {
    now: sub.now,
    plan: sub.plan,
    scanFrequency: sub.scan_frequency,
    sites: sites.map((site) => ({ site, history: history.filter((h) => h.site_id === site.id) })),
    alerts,
  };
}

/** The operator's view of an account's monitoring subscription (CLI `subscriptions show`). */
export async function subscriptionView(db: Kysely<Database>, accountId: string) {
  const account = await db
    .selectFrom('accounts')
    .select(['id', 'variant', 'email'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) return undefined;
  const sub = await db
    .selectFrom('subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const { used } = await db
    .selectFrom('monitored_sites')
    .select((eb) => eb.fn.countAll<number>().as('used'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return {
    account: Number(account.id),
    email: account.email,
    variant: account.variant,
    plan: sub?.plan ?? null,
    status: sub?.status ?? 'none',
    siteQuota: sub?.site_quota ?? 0,
    scanFrequency: sub?.scan_frequency ?? null,
    promptQuota: sub?.prompt_quota ?? 0,
    sitesUsed: Number(used),
    /** The current status token's first characters; the token itself is shown only once. */
    statusTokenPrefix: sub?.status_token_prefix ?? null,
  };
}
