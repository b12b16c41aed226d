import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { MonitorScan } from '../db/tables/monitor-scans.ts';
import type { MonitoredSite } from '../db/tables/monitored-sites.ts';
import { selectSites } from './site-rows.ts';
import { HISTORY_LENGTH } from './sites.ts';

// The console's view of an account's monitoring: every site (own and competitors) with its
// recent scans, and the account's recent alerts. Scoped by account id throughout.

export interface SiteWithHistory {
  site: MonitoredSite;
  history: MonitorScan[]; // oldest first, latest last
}

export async function sitesWithHistory(
  db: Kysely<Database>,
  accountId: string,
  opts: { siteId?: string; length?: number } = {},
): Promise<SiteWithHistory[]> {
  let q = selectSites(db).where('m.account_id', '=', accountId);
  if (opts.siteId !== undefined) q = q.where('m.id', '=', opts.siteId);
  // Own sites first, then competitors.
  const sites = await q.orderBy(sql`m.site_type = 'own'`, 'desc').orderBy('m.id').execute();
  if (sites.length === 0) return [];
  const ids = sites.map((s) => s.id);
  const history = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('monitor_scans')
        .selectAll()
        .select(
          sql<number>`row_number() over (partition by site_id order by scanned_at desc, id desc)`.as('n'),
        )
        .where('site_id', 'in', ids)
        .as('h'),
    )
    .selectAll()
    .where('n', '<=', opts.length ?? HISTORY_LENGTH)
    .orderBy('scanned_at')
    .orderBy('id')
    .execute();
  return sites.map((site) => ({ site, history: history.filter((h) => h.site_id === site.id) }));
}

export async function recentAlerts(
  db: Kysely<Database>,
  accountId: string,
  opts: { siteId?: string; limit?: number } = {},
) {
  let q = db
    .selectFrom('monitor_alerts as a')
    .innerJoin('monitored_sites as m', 'm.id', 'a.site_id')
    .select([
      'a.id',
      'a.site_id',
      'm.label',
      'm.url',
      'a.alert_type',
      'a.dimension',
      'a.delta',
      'a.message',
      'a.scanned_at',
      'a.delivery_status',
      'a.delivery_detail',
    ])
    .where('m.account_id', '=', accountId);
  if (opts.siteId !== undefined) q = q.where('a.site_id', '=', opts.siteId);
  return q
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(opts.limit ?? 20)
    .execute();
}
