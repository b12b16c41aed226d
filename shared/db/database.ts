import type { AccountsTable } from './tables/accounts.ts';
import type { ApiKeysTable } from './tables/api-keys.ts';
import type { AuditOrdersTable } from './tables/audit-orders.ts';
import type { AuditProductsTable } from './tables/audit-products.ts';
import type { MonitorAlertsTable } from './tables/monitor-alerts.ts';
import type { MonitorScansTable } from './tables/monitor-scans.ts';
import type { MonitoredSitesTable } from './tables/monitored-sites.ts';
import type { EmailTokensTable, PeopleTable, SessionsTable } from './tables/people.ts';
import type { RateLimitHitsTable } from './tables/rate-limit-hits.ts';
import type { ScansTable } from './tables/scans.ts';
import type { SubscriptionsTable } from './tables/subscriptions.ts';
import type { WebhookDeliveriesTable } from './tables/webhook-deliveries.ts';
import type { WorkerHeartbeatsTable } from './tables/worker-heartbeats.ts';

// The typed view of our tables (sql/ is the source of truth; keep these in step with it).
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  subscriptions: SubscriptionsTable;
  audit_products: AuditProductsTable;
  rate_limit_hits: RateLimitHitsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  scans: ScansTable;
  monitored_sites: MonitoredSitesTable;
  monitor_scans: MonitorScansTable;
  monitor_alerts: MonitorAlertsTable;
  audit_orders: AuditOrdersTable;
  webhook_deliveries: WebhookDeliveriesTable;
  people: PeopleTable;
  sessions: SessionsTable;
  email_tokens: EmailTokensTable;
}
