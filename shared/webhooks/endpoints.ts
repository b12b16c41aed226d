import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Thresholds, WebhookEndpoint } from '../db/tables/b-sites.ts';
import type { WebhookDelivery } from '../db/tables/webhook-deliveries.ts';
import { badRequest, notFound, quotaExceeded } from '../errors.ts';
import { urlPolicy, vetTargetUrl } from '../scans/scans.ts';
import type { Services } from '../services.ts';
import { deliverWebhook, type WebhookAttempt } from './deliver.ts';
import { newWebhookSecret } from './sign.ts';

// Webhook endpoints of variant B accounts (/api/v1/webhooks). Each endpoint has its own Standard
// Webhooks secret, shown when it is created and when it is rotated, never listed. Every delivery
// goes through the one webhook module (shared/webhooks): the scan address policy, no redirects,
// one attempt, recorded in webhook_deliveries with the endpoint as its subject.

export const ALERT_EVENT = 'monitoring.alert';
export const TEST_EVENT = 'webhook.test';
export const SUBSCRIBABLE_EVENTS = [ALERT_EVENT] as const;
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;
export const DEFAULT_THRESHOLD: Thresholds = { overall: 50 };

export const endpointSubject = (id: string) => `webhook_endpoint:${id}`;

export interface EndpointInput {
  url: string;
  events?: string[];
  siteIds?: number[] | null;
  threshold?: Thresholds;
  enabled?: boolean;
}

async function vetSiteIds(
  db: Kysely<Database>,
  accountId: string,
  siteIds: number[] | null | undefined,
): Promise<string[] | null | undefined> {
  if (siteIds === undefined || siteIds === null) return siteIds;
  const ids = [...new Set(siteIds.map(String))];
  if (ids.length === 0) return [];
  const found = await db
    .selectFrom('agent_sites')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  const mine = new Set(found.map((r) => r.id));
  const unknown = ids.filter((id) => !mine.has(id));
  if (unknown.length)
    throw badRequest(`No registered site ${unknown.join(', ')} in this account.`, [
      { field: 'body.site_ids', message: `unknown site id ${unknown.join(', ')}` },
    ]);
  return ids;
}

async function vetUrl(services: Pick<Services, 'config'>, url: string): Promise<string> {
  return (await vetTargetUrl(services, url, 'body.url')).toString();
}

export async function createEndpoint(
  services: Services,
  accountId: string,
  input: EndpointInput,
): Promise<WebhookEndpoint> {
  const url = await vetUrl(services, input.url);
  const siteIds = await vetSiteIds(services.db, accountId, input.siteIds);
  return services.db.transaction().execute(async (trx) => {
    // Serialises creation per account so the quota holds under concurrent requests.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${accountId}`}, 13))`.execute(
      trx,
    );
    const { n } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_ENDPOINTS_PER_ACCOUNT)
      throw quotaExceeded(`An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints.`);
    return trx
      .insertInto('webhook_endpoints')
      .values({
        account_id: accountId,
        url,
        events: input.events ?? [...SUBSCRIBABLE_EVENTS],
        site_ids: siteIds ?? null,
        threshold: JSON.stringify(input.threshold ?? DEFAULT_THRESHOLD),
        enabled: input.enabled ?? true,
        secret: newWebhookSecret(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function listEndpoints(db: Kysely<Database>, accountId: string): Promise<WebhookEndpoint[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/** Another account's endpoint is 404, like a missing one. */
export async function getEndpoint(
  db: Kysely<Database>,
  accountId: string,
  id: string | number,
): Promise<WebhookEndpoint> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', String(id))
    .executeTakeFirst();
  if (!row) throw notFound(`No webhook ${id}.`);
  return row;
}

export async function updateEndpoint(
  services: Services,
  accountId: string,
  id: string | number,
  patch: Partial<EndpointInput>,
): Promise<WebhookEndpoint> {
  await getEndpoint(services.db, accountId, id);
  const url = patch.url === undefined ? undefined : await vetUrl(services, patch.url);
  const siteIds = await vetSiteIds(services.db, accountId, patch.siteIds);
  const row = await services.db
    .updateTable('webhook_endpoints')
    .set({
      ...(url !== undefined ? { url } : {}),
      ...(patch.events !== undefined ? { events: patch.events } : {}),
      ...(siteIds !== undefined ? { site_ids: siteIds } : {}),
      ...(patch.threshold !== undefined ? { threshold: JSON.stringify(patch.threshold) } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      updated_at: sql<Date>`now()`,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', String(id))
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound(`No webhook ${id}.`);
  return row;
}

export async function deleteEndpoint(db: Kysely<Database>, accountId: string, id: string | number) {
  const gone = await db
    .deleteFrom('webhook_endpoints')
    .where('account_id', '=', accountId)
    .where('id', '=', String(id))
    .executeTakeFirst();
  if (gone.numDeletedRows === 0n) throw notFound(`No webhook ${id}.`);
}

/** A new secret replaces the old one at once; the next delivery is signed with it. */
export async function rotateSecret(
  db: Kysely<Database>,
  accountId: string,
  id: string | number,
): Promise<WebhookEndpoint> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set({ secret: newWebhookSecret(), updated_at: sql<Date>`now()` })
    .where('account_id', '=', accountId)
    .where('id', '=', String(id))
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound(`No webhook ${id}.`);
  return row;
}

/** Sends a signed webhook.test event now (enabled or not) and returns the attempt. */
export async function sendTestEvent(
  services: Services,
  accountId: string,
  id: string | number,
): Promise<WebhookAttempt> {
  const endpoint = await getEndpoint(services.db, accountId, id);
  return deliverWebhook(services.db, {
    accountId,
    url: endpoint.url,
    event: TEST_EVENT,
    payload: {
      event: TEST_EVENT,
      webhook_id: Number(endpoint.id),
      message: 'A test event: this endpoint is reachable and can verify the signature.',
    },
    policy: urlPolicy(services),
    subject: endpointSubject(endpoint.id),
    secret: endpoint.secret ?? undefined,
  });
}

export async function listDeliveries(
  db: Kysely<Database>,
  accountId: string,
  id: string | number,
  limit: number,
): Promise<WebhookDelivery[]> {
  const endpoint = await getEndpoint(db, accountId, id);
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('subject', '=', endpointSubject(endpoint.id))
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Enabled endpoints of the account that take monitoring.alert for this site. */
export async function alertEndpointsFor(
  db: Kysely<Database>,
  accountId: string,
  siteId: string,
): Promise<WebhookEndpoint[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('enabled', '=', true)
    .where(sql<boolean>`${ALERT_EVENT} = any(events)`)
    .where((eb) => eb.or([eb('site_ids', 'is', null), sql<boolean>`${siteId}::bigint = any(site_ids)`]))
    .orderBy('id')
    .execute();
}
