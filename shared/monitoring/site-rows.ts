import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';

/**
 * Monitored sites with their alert webhook's URL (`webhook_url`, null for none): the webhook is
 * a webhook_endpoints row the site points at. Columns are qualified: `m.` for the site.
 */
export const selectSites = (db: Kysely<Database>) =>
  db
    .selectFrom('monitored_sites as m')
    .leftJoin('webhook_endpoints as e', 'e.id', 'm.webhook_endpoint_id')
    .selectAll('m')
    .select('e.url as webhook_url');

/**
 * Points the site at an endpoint for `url` (or at none for null), replacing any endpoint it had.
 * Run inside the transaction that writes the site.
 */
export async function setSiteWebhook(
  trx: Kysely<Database>,
  site: { id: string; account_id: string; webhook_endpoint_id: string | null },
  url: string | null,
): Promise<void> {
  if (site.webhook_endpoint_id !== null && url !== null) {
    await trx
      .updateTable('webhook_endpoints')
      .set({ url, updated_at: new Date() })
      .where('id', '=', site.webhook_endpoint_id)
      .execute();
    return;
  }
  if (site.webhook_endpoint_id !== null) {
    await trx
      .updateTable('monitored_sites')
      .set({ webhook_endpoint_id: null })
      .where('id', '=', site.id)
      .execute();
    await trx.deleteFrom('webhook_endpoints').where('id', '=', site.webhook_endpoint_id).execute();
  }
  if (url === null) return;
  const endpoint = await trx
    .insertInto('webhook_endpoints')
    .values({
      account_id: site.account_id,
      url,
      events: ['monitoring.alert'],
      threshold: '{}',
      secret: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('monitored_sites')
    .set({ webhook_endpoint_id: endpoint.id })
    .where('id', '=', site.id)
    .execute();
}
