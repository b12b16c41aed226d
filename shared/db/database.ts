import type { AccountsTable } from './tables/accounts.ts';
import type {
  AgentCoverageTable,
  AgentDailyRollupsTable,
  AgentEventsTable,
  AgentPageRollupsTable,
  AgentPathBlocksTable,
  AgentPathRollupsTable,
  AgentRollupsTable,
  AgentSitesTable,
  AiReferralRollupsTable,
  AiReferralsTable,
  RateLimitWeightsTable,
} from './tables/agent-traffic.ts';
import type { ApiKeysTable } from './tables/api-keys.ts';
import type { AuditOrdersTable } from './tables/audit-orders.ts';
import type { AuditProductsTable } from './tables/audit-products.ts';
import type {
  BSiteAlertsTable,
  BSiteScansTable,
  BSiteSchedulesTable,
  WebhookEndpointsTable,
  WebhookOpenAlertsTable,
} from './tables/b-sites.ts';
import type { StripeEventsTable, StripeSubscriptionsTable } from './tables/billing.ts';
import type {
  GeoAnswersTable,
  GeoCallUsageTable,
  GeoChecksTable,
  GeoPromptsTable,
  GeoRunsTable,
} from './tables/geo.ts';
import type { MonitorAlertsTable } from './tables/monitor-alerts.ts';
import type { MonitorScansTable } from './tables/monitor-scans.ts';
import type { MonitoredSitesTable } from './tables/monitored-sites.ts';
import type { EmailTokensTable, PeopleTable, SessionsTable } from './tables/people.ts';
import type { RateLimitBucketsTable } from './tables/rate-limit-buckets.ts';
import type { RateLimitSecondsTable } from './tables/rate-limit-seconds.ts';
import type { ScansTable } from './tables/scans.ts';
import type { SubscriptionsTable } from './tables/subscriptions.ts';
import type { WatchAlertsTable, WatchScansTable } from './tables/watch.ts';
import type { WebhookDeliveriesTable } from './tables/webhook-deliveries.ts';
import type { WorkerHeartbeatsTable } from './tables/worker-heartbeats.ts';

// The typed view of our tables (sql/ is the source of truth; keep these in step with it).
// monitor_scans, monitor_alerts, b_site_scans and b_site_alerts are views of watch_scans and
// watch_alerts (sql/035), each in its variant's columns.
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  subscriptions: SubscriptionsTable;
  audit_products: AuditProductsTable;
  rate_limit_seconds: RateLimitSecondsTable;
  rate_limit_buckets: RateLimitBucketsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  scans: ScansTable;
  monitored_sites: MonitoredSitesTable;
  monitor_scans: MonitorScansTable;
  monitor_alerts: MonitorAlertsTable;
  audit_orders: AuditOrdersTable;
  webhook_deliveries: WebhookDeliveriesTable;
  agent_sites: AgentSitesTable;
  agent_events: AgentEventsTable;
  agent_rollups: AgentRollupsTable;
  agent_daily_rollups: AgentDailyRollupsTable;
  agent_page_rollups: AgentPageRollupsTable;
  /** Page counts appended by ingest batches, not yet folded into the two tables around it (sql/018). */
  agent_page_pending: AgentPageRollupsTable;
  agent_path_rollups: AgentPathRollupsTable;
  agent_path_blocks: AgentPathBlocksTable;
  ai_referrals: AiReferralsTable;
  ai_referral_rollups: AiReferralRollupsTable;
  agent_coverage: AgentCoverageTable;
  rate_limit_weights: RateLimitWeightsTable;
  geo_prompts: GeoPromptsTable;
  geo_checks: GeoChecksTable;
  geo_runs: GeoRunsTable;
  geo_answers: GeoAnswersTable;
  geo_call_usage: GeoCallUsageTable;
  people: PeopleTable;
  sessions: SessionsTable;
  email_tokens: EmailTokensTable;
  b_site_schedules: BSiteSchedulesTable;
  b_site_scans: BSiteScansTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_open_alerts: WebhookOpenAlertsTable;
  b_site_alerts: BSiteAlertsTable;
  watch_scans: WatchScansTable;
  watch_alerts: WatchAlertsTable;
  stripe_events: StripeEventsTable;
  stripe_subscriptions: StripeSubscriptionsTable;
}
