import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { WebhookDelivery } from '../db/tables/webhook-deliveries.ts';
import { webhookDeliveries, webhookLatency } from '../metrics.ts';
import { safeFetch } from '../net/safe-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { errorText } from '../scan-engine/gatherers/fetch-text.ts';
import { newWebhookSecret, webhookHeaders } from './sign.ts';

// The one outbound webhook path of the service, for every event kind: Standard Webhooks
// signatures with the account's secret, X-Service-Event, the scan address policy (checked again
// at connect time), no redirects, a 10 s bound and exactly one attempt, recorded with its outcome.
// With a dedupeKey there is at most one attempt per key, ever: the row is written before the
// request, so a worker that dies mid-attempt never causes a second one.

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** A pending row older than this was left by a worker that died during the attempt. */
const STALE_PENDING_SECONDS = 60;
// Neutral on purpose: deliveries carry no vendor branding.
const USER_AGENT = 'Webhooks/1.0';

export interface WebhookRequest {
  accountId: string;
  url: string;
  event: string; // also the X-Service-Event header
  payload: object;
  policy: UrlPolicy;
  /** What the event is about (an order id, a site id), for operators and look-ups. */
  subject?: string;
  /** At most one attempt per key: a second call returns the first attempt instead of sending. */
  dedupeKey?: string;
  /** Signing secret of the endpoint (B webhook endpoints have their own); default the account's. */
  secret?: string;
}

export interface WebhookAttempt {
  id: string; // the webhook-id header
  accountId: string;
  event: string;
  url: string;
  subject: string | null;
  status: 'pending' | 'delivered' | 'failed';
  httpStatus: number | null;
  latencyMs: number | null;
  error: string | null;
  createdAt: Date;
  /** False when an earlier attempt with the same dedupeKey was returned and nothing was sent. */
  sent: boolean;
}

/** The account's signing secret, created (once, race-free) on first use. */
export async function accountWebhookSecret(db: Kysely<Database>, accountId: string): Promise<string> {
  const row = await db
    .selectFrom('accounts')
    .select('webhook_secret')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new Error(`no account ${accountId}`);
  if (row.webhook_secret) return row.webhook_secret;
  const made = await db
    .updateTable('accounts')
    .set({ webhook_secret: sql<string>`coalesce(webhook_secret, ${newWebhookSecret()})` })
    .where('id', '=', accountId)
    .returning('webhook_secret')
    .executeTakeFirstOrThrow();
  return made.webhook_secret!;
}

export async function deliverWebhook(db: Kysely<Database>, req: WebhookRequest): Promise<WebhookAttempt> {
  if (req.dedupeKey) {
    const prior = await earlier(db, req.dedupeKey);
    if (prior) return prior;
  }
  const body = JSON.stringify(req.payload);
  const row = await db
    .insertInto('webhook_deliveries')
    .values({
      id: `msg_${randomBytes(16).toString('base64url')}`,
      account_id: req.accountId,
      event: req.event,
      url: req.url,
      subject: req.subject ?? null,
      dedupe_key: req.dedupeKey ?? null,
      payload: body,
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) return (await earlier(db, req.dedupeKey!))!; // a concurrent caller won the key

  const secret = req.secret ?? (await accountWebhookSecret(db, req.accountId));
  const headers = webhookHeaders(secret, {
    id: row.id,
    event: req.event,
    timestampSeconds: Math.floor(Date.now() / 1000),
    body,
  });
  const started = performance.now();
  let httpStatus: number | null = null;
  let error: string | null = null;
  try {
    const res = await safeFetch(req.url, {
      policy: req.policy,
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', accept: '*/*', ...headers },
      userAgent: USER_AGENT,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      followRedirects: false,
      maxBytes: 64 * 1024, // the answer is not read beyond its status
    });
    httpStatus = res.status;
    if (res.status >= 300 && res.status < 400) {
      error = `HTTP ${res.status}: redirects are not followed${res.headers.location ? ` (Location: ${res.headers.location.slice(0, 300)})` : ''}`;
    } else if (res.status < 200 || res.status >= 300) {
      error = `HTTP ${res.status}`;
    }
  } catch (err) {
    error = errorText(err);
  }
  const latencyMs = Math.round(performance.now() - started);
  const status = error === null ? 'delivered' : 'failed';
  const done = await db
    .updateTable('webhook_deliveries')
    .set({ status, http_status: httpStatus, latency_ms: latencyMs, error, finished_at: sql`now()` })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  webhookDeliveries.inc({ event: req.event, outcome: status });
  webhookLatency.observe({ event: req.event }, latencyMs / 1000);
  return toAttempt(done, true);
}

const INTERRUPTED =
  'interrupted: the worker stopped during the attempt; its outcome is unknown and it is not repeated';

/**
 * Settles every attempt left `pending` by a worker that died mid-request (older than any attempt
 * can last): `failed` with an "outcome unknown" error. Never re-sent: one attempt is the contract.
 * Run every minute by the reap_dead_workers task. Returns how many were settled.
 */
export async function settleStaleDeliveries(db: Kysely<Database>): Promise<number> {
  const rows = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', error: INTERRUPTED, finished_at: sql`now()` })
    .where('status', '=', 'pending')
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_PENDING_SECONDS})`)
    .returning('event')
    .execute();
  for (const r of rows) webhookDeliveries.inc({ event: r.event, outcome: 'failed' });
  return rows.length;
}

/** The attempt already made for this key, settling one a dead worker left pending. */
async function earlier(db: Kysely<Database>, dedupeKey: string): Promise<WebhookAttempt | undefined> {
  const settled = await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'failed',
      error: INTERRUPTED,
      finished_at: sql`now()`,
    })
    .where('dedupe_key', '=', dedupeKey)
    .where('status', '=', 'pending')
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_PENDING_SECONDS})`)
    .returningAll()
    .executeTakeFirst();
  if (settled) webhookDeliveries.inc({ event: settled.event, outcome: 'failed' });
  const row =
    settled ??
    (await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('dedupe_key', '=', dedupeKey)
      .executeTakeFirst());
  return row && toAttempt(row, false);
}

function toAttempt(row: WebhookDelivery, sent: boolean): WebhookAttempt {
  return {
    id: row.id,
    accountId: row.account_id,
    event: row.event,
    url: row.url,
    subject: row.subject,
    status: row.status,
    httpStatus: row.http_status,
    latencyMs: row.latency_ms,
    error: row.error,
    createdAt: row.created_at,
    sent,
  };
}
