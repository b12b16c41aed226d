import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createAccount } from '../../../shared/accounts/accounts.ts';
import { expireIdempotencyKeys } from '../../../shared/audits/retention.ts';
import { loadConfig } from '../../../shared/config.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { addJob } from '../../../shared/jobs/queue.ts';
import { pruneWatchTable } from '../../../shared/watch/retention.ts';
import { pruneWebhookDeliveries } from '../../../shared/webhooks/retention.ts';
import { startWorker } from '../../../worker/runner.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Retention of webhook attempts, idempotency keys, and the scheduled watch's scans and alerts (A
// monitoring, B weekly scans): each prune touches only rows past their age (rows are made old by
// moving their timestamps back in SQL), in batches, and the daily prune_retention task runs them.

let db: TestDatabase;
let handle: Db;
let accountId: string;
let seq = 0;

before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url);
  const { account } = await createAccount(handle.db, { email: 'keep@x.test', variant: 'A', tier: 'agent' });
  accountId = account.id;
});
after(async () => {
  await handle.close();
  await db.drop();
});

/** A webhook attempt recorded `age` ago (a Postgres interval). */
async function delivery(age: string, status: 'pending' | 'delivered' | 'failed' = 'delivered') {
  const id = `msg_test_${++seq}`;
  await sql`insert into webhook_deliveries (id, account_id, event, url, dedupe_key, payload, status)
    values (${id}, ${accountId}, 'audit.delivered', 'https://hook.test/', ${`k${seq}`}, '{}', ${status})`.execute(
    handle.db,
  );
  await sql`update webhook_deliveries set created_at = now() - ${age}::interval where id = ${id}`.execute(
    handle.db,
  );
  return id;
}

/** An order (with an Idempotency-Key) placed `age` ago. */
async function order(key: string, age: string) {
  const id = `ao_test_${++seq}`;
  await sql`insert into audit_orders (id, account_id, product, target_url, idempotency_key, report_token)
    values (${id}, ${accountId}, 'seo_audit', 'https://a.test/', ${key}, ${`tok${seq}`})`.execute(handle.db);
  await sql`update audit_orders set created_at = now() - ${age}::interval where id = ${id}`.execute(
    handle.db,
  );
  return id;
}

let siteId: string | undefined;
/** A monitoring alert raised `age` ago, on its own scan of one site. */
async function alert(age: string) {
  siteId ??= (
    await sql<{ id: string }>`insert into monitored_sites (account_id, url, label, site_type)
      values (${accountId}, 'https://watched.test/', 'watched', 'own') returning id`.execute(handle.db)
  ).rows[0]!.id;
  const scan = (
    await sql<{ id: string }>`insert into monitor_scans
        (site_id, due_at, status, overall_score, dimension_scores, issues, model_version)
      values (${siteId}, now() - make_interval(secs => ${++seq}), 'ok', 50, '{}', '[]', '1') returning id`.execute(
      handle.db,
    )
  ).rows[0]!.id;
  const id = (
    await sql<{ id: string }>`insert into monitor_alerts
        (site_id, monitor_scan_id, alert_type, previous_score, current_score, delta, message, scanned_at,
         delivery_status)
      values (${siteId}, ${scan}, 'score_drop', 80, 50, -30, 'dropped', now(), 'delivered') returning id`.execute(
      handle.db,
    )
  ).rows[0]!.id;
  await sql`update monitor_alerts set created_at = now() - ${age}::interval where id = ${id}`.execute(
    handle.db,
  );
  return id;
}

const ids = async (table: 'webhook_deliveries' | 'monitor_alerts', among: string[]) =>
  (await handle.db.selectFrom(table).select('id').where('id', 'in', among).execute())
    .map((r) => String(r.id))
    .sort();

/** A monitoring scan of `site` recorded `age` ago, with one alert raised on it. */
async function monitorScan(site: string, age: string) {
  const scan = (
    await sql<{ id: string }>`insert into monitor_scans
        (site_id, due_at, status, overall_score, dimension_scores, issues, model_version)
      values (${site}, now() - make_interval(secs => ${++seq}), 'ok', 50, '{}', '[]', '1') returning id`.execute(
      handle.db,
    )
  ).rows[0]!.id;
  await sql`update monitor_scans set scanned_at = now() - ${age}::interval where id = ${scan}`.execute(
    handle.db,
  );
  await sql`insert into monitor_alerts
      (site_id, monitor_scan_id, alert_type, previous_score, current_score, delta, message, scanned_at)
    values (${site}, ${scan}, 'score_drop', 80, 50, -30, 'dropped', now())`.execute(handle.db);
  return scan;
}

async function monitoredSite(url: string) {
  return (
    await sql<{ id: string }>`insert into monitored_sites (account_id, url, label, site_type)
      values (${accountId}, ${url}, 'watched', 'own') returning id`.execute(handle.db)
  ).rows[0]!.id;
}

let bAccountId: string | undefined;
async function bSite(url: string) {
  bAccountId ??= (
    await createAccount(handle.db, { email: 'b-keep@x.test', variant: 'B', tier: 'optimisation' })
  ).account.id;
  return (
    await sql<{ id: string }>`insert into agent_sites
        (account_id, tracking_id, url, domain, label, ingest_token_hash, ingest_token_prefix)
      values (${bAccountId}, ${`site_t${++seq}`}, ${url}, 'b.test', 'b', ${Buffer.from(`h${seq}`)}, 'p')
      returning id`.execute(handle.db)
  ).rows[0]!.id;
}

let endpointId: string | undefined;
/** A weekly scan record of `site` made `age` ago, with one threshold alert made `alertAge` ago. */
async function bScan(site: string, age: string, alertAge = age) {
  endpointId ??= (
    await sql<{ id: string }>`insert into webhook_endpoints (account_id, url, events, threshold, secret)
      values (${bAccountId}, 'https://hook.test/', '{monitoring.alert}', '{}', 'whsec_x') returning id`.execute(
      handle.db,
    )
  ).rows[0]!.id;
  const scan = (
    await sql<{ id: string }>`insert into b_site_scans (site_id, trigger, due_at, status, overall_score)
      values (${site}, 'scheduled', now() - make_interval(secs => ${++seq}), 'ok', 50) returning id`.execute(
      handle.db,
    )
  ).rows[0]!.id;
  await sql`update b_site_scans set created_at = now() - ${age}::interval where id = ${scan}`.execute(
    handle.db,
  );
  const alertId = (
    await sql<{ id: string }>`insert into b_site_alerts
        (site_scan_id, webhook_id, site_id, metric, alert_type, previous_score, current_score, delta, message,
         scanned_at)
      values (${scan}, ${endpointId}, ${site}, 'overall', 'score_drop', 80, 50, -30, 'dropped', now())
      returning id`.execute(handle.db)
  ).rows[0]!.id;
  await sql`update b_site_alerts set created_at = now() - ${alertAge}::interval where id = ${alertId}`.execute(
    handle.db,
  );
  return { scan, alert: alertId };
}

const count = async (table: string, column: string, among: string[]) =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}
        where ${sql.ref(column)} = any(${among}::bigint[])`.execute(handle.db)
    ).rows[0]!.n,
  );
const kept = async (table: string, among: string[]) =>
  (
    await sql<{
      id: string;
    }>`select id from ${sql.table(table)} where id = any(${among}::bigint[]) order by id`.execute(handle.db)
  ).rows
    .map((r) => String(r.id))
    .sort();

describe('pruneWebhookDeliveries', () => {
  it('deletes attempts older than the retention, whatever their status, and keeps younger ones', async () => {
    const old = [
      await delivery('31 days'),
      await delivery('40 days', 'failed'),
      await delivery('400 days', 'pending'),
      await delivery('31 days'),
      await delivery('35 days'),
    ];
    const young = [
      await delivery('29 days'),
      await delivery('1 hour', 'pending'),
      await delivery('0 seconds'),
    ];
    // Batches of 2: five old rows take three batches, the last one short.
    assert.equal(await pruneWebhookDeliveries(handle.db, 30, { batch: 2 }), 5);
    assert.deepEqual(await ids('webhook_deliveries', [...old, ...young]), [...young].sort());
    assert.equal(await pruneWebhookDeliveries(handle.db, 30), 0, 'nothing left to prune');
  });

  it('follows the configured number of days', async () => {
    await sql`delete from webhook_deliveries`.execute(handle.db);
    const a = await delivery('8 days');
    const b = await delivery('6 days');
    assert.equal(await pruneWebhookDeliveries(handle.db, 7), 1);
    assert.deepEqual(await ids('webhook_deliveries', [a, b]), [b]);
  });
});

describe('expireIdempotencyKeys', () => {
  it('clears keys older than the time-to-live and leaves the orders and younger keys alone', async () => {
    const expired = [
      await order('exp-1', '25 hours'),
      await order('exp-2', '30 days'),
      await order('exp-3', '3 days'),
    ];
    const live = [await order('live-1', '23 hours'), await order('live-2', '1 minute')];
    assert.equal(await expireIdempotencyKeys(handle.db, 24, { batch: 2 }), 3);
    const rows = await handle.db
      .selectFrom('audit_orders')
      .select(['id', 'idempotency_key'])
      .where('id', 'in', [...expired, ...live])
      .orderBy('id')
      .execute();
    assert.equal(rows.length, 5, 'orders are kept');
    assert.deepEqual(
      Object.fromEntries(rows.map((r) => [r.id, r.idempotency_key])),
      Object.fromEntries([...expired.map((id) => [id, null]), [live[0], 'live-1'], [live[1], 'live-2']]),
    );
    assert.equal(await expireIdempotencyKeys(handle.db, 24), 0);
  });
});

describe('pruneWatchTable: watch_alerts of A sites', () => {
  it('deletes alerts older than the retention and keeps younger ones and the scan history', async () => {
    const old = [await alert('91 days'), await alert('200 days'), await alert('91 days')];
    const young = [await alert('89 days'), await alert('1 day')];
    const scansBefore = Number(
      (await sql<{ n: string }>`select count(*) as n from monitor_scans`.execute(handle.db)).rows[0]!.n,
    );
    assert.equal(await pruneWatchTable(handle.db, 'watch_alerts', 90, { batch: 2 }), 3);
    assert.deepEqual(await ids('monitor_alerts', [...old, ...young]), [...young].sort());
    const scansAfter = Number(
      (await sql<{ n: string }>`select count(*) as n from monitor_scans`.execute(handle.db)).rows[0]!.n,
    );
    assert.equal(scansAfter, scansBefore);
  });
});

describe('pruneWatchTable: watch_scans of A sites', () => {
  it('deletes scans (and their alerts) older than the window, keeping each site its latest scan', async () => {
    const busy = await monitoredSite('https://busy.test/');
    const old = [await monitorScan(busy, '500 days'), await monitorScan(busy, '401 days')];
    const young = [await monitorScan(busy, '399 days'), await monitorScan(busy, '1 day')];
    const quiet = await monitoredSite('https://quiet.test/');
    const onlyScan = await monitorScan(quiet, '700 days');
    assert.equal(await pruneWatchTable(handle.db, 'watch_scans', 400, { batch: 1 }), 2);
    assert.deepEqual(await kept('monitor_scans', [...old, ...young, onlyScan]), [...young, onlyScan].sort());
    assert.equal(await count('monitor_alerts', 'monitor_scan_id', old), 0, 'their alerts went with them');
    assert.equal(await count('monitor_alerts', 'monitor_scan_id', young), 2);
    assert.equal(await pruneWatchTable(handle.db, 'watch_scans', 400), 0, 'nothing left to prune');
  });
});

describe('pruneWatchTable: watch_scans and watch_alerts of B sites', () => {
  it('delete B scan records past the history window (keeping each site its latest) and alerts past theirs', async () => {
    const busy = await bSite('https://b-busy.test/');
    const old = await bScan(busy, '420 days');
    const mid = await bScan(busy, '120 days', '91 days');
    const recent = await bScan(busy, '7 days');
    const quiet = await bSite('https://b-quiet.test/');
    const only = await bScan(quiet, '800 days', '1 day');
    assert.equal(await pruneWatchTable(handle.db, 'watch_scans', 400, { batch: 1 }), 1);
    assert.deepEqual(
      await kept('b_site_scans', [old.scan, mid.scan, recent.scan, only.scan]),
      [mid.scan, recent.scan, only.scan].sort(),
    );
    assert.equal(await pruneWatchTable(handle.db, 'watch_alerts', 90), 1);
    assert.deepEqual(
      await kept('b_site_alerts', [old.alert, mid.alert, recent.alert, only.alert]),
      [recent.alert, only.alert].sort(),
    );
  });
});

describe('prune_retention task', () => {
  it('runs every prune with the configured periods', async () => {
    const oldDelivery = await delivery('3 days');
    const keptDelivery = await delivery('1 day');
    const oldOrder = await order('task-old', '3 hours');
    const keptOrder = await order('task-kept', '1 hour');
    const oldAlert = await alert('3 days');
    const keptAlert = await alert('1 day');
    const watched = await monitoredSite('https://task-watched.test/');
    const oldScan = await monitorScan(watched, '6 days');
    const keptScan = await monitorScan(watched, '4 days');
    const b = await bSite('https://task-b.test/');
    const oldB = await bScan(b, '6 days', '3 days');
    const keptB = await bScan(b, '4 days', '1 day');
    const config = loadConfig({
      ...process.env,
      LOG_LEVEL: 'silent',
      WEBHOOK_DELIVERY_RETENTION_DAYS: '2',
      IDEMPOTENCY_KEY_TTL_HOURS: '2',
      MONITOR_ALERT_RETENTION_DAYS: '2',
      WATCH_HISTORY_RETENTION_DAYS: '5',
    });
    const worker = await startWorker(config, db.url, { metricsPort: null, crontab: null });
    try {
      const { id } = await addJob(handle.db, 'prune_retention', {});
      for (let i = 0; ; i++) {
        const job = await sql<{ last_error: string | null }>`
          select last_error from graphile_worker.jobs where id = ${id}`.execute(handle.db);
        if (job.rows.length === 0) break;
        assert.equal(job.rows[0]!.last_error, null);
        assert.ok(i < 300, 'prune_retention did not finish');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await worker.close();
    }
    assert.deepEqual(await ids('webhook_deliveries', [oldDelivery, keptDelivery]), [keptDelivery]);
    assert.deepEqual(await ids('monitor_alerts', [oldAlert, keptAlert]), [keptAlert]);
    assert.deepEqual(await kept('monitor_scans', [oldScan, keptScan]), [keptScan]);
    assert.deepEqual(await kept('b_site_scans', [oldB.scan, keptB.scan]), [keptB.scan]);
    assert.deepEqual(await kept('b_site_alerts', [oldB.alert, keptB.alert]), [keptB.alert]);
    const keys = await handle.db
      .selectFrom('audit_orders')
      .select(['id', 'idempotency_key'])
      .where('id', 'in', [oldOrder, keptOrder])
      .orderBy('id')
      .execute();
    assert.deepEqual(Object.fromEntries(keys.map((r) => [r.id, r.idempotency_key])), {
      [oldOrder]: null,
      [keptOrder]: 'task-kept',
    });
  });
});

describe('Idempotency-Key time-to-live over the API', () => {
  let t: TestApi;
  before(async () => {
    t = await startTestApi({ SCAN_ALLOW_HOSTS: '127.0.0.1:9', IDEMPOTENCY_KEY_TTL_HOURS: '24' });
  });
  after(() => t.close());

  it('replays within the time-to-live; once expired the same key places a new order', async () => {
    const key = await t.newKey('A', 'agent');
    const place = (product: string) =>
      call(t.url, '/api/v1/audit', {
        method: 'POST',
        key,
        body: { product, target_url: 'http://127.0.0.1:9/' },
        headers: { 'idempotency-key': 'ttl-1' },
      });
    const first = await place('seo_audit');
    assert.equal(first.status, 201, first.text);
    const replay = await place('seo_audit');
    assert.equal(replay.body.order_id, first.body.order_id);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal((await place('speed_audit')).status, 422, 'a different body within the TTL is refused');

    // 25 hours later (no prune has run yet): the key is free for a new order at once.
    await sql`update audit_orders set created_at = now() - interval '25 hours' where id = ${first.body.order_id}`.execute(
      t.handle.db,
    );
    const fresh = await place('speed_audit');
    assert.equal(fresh.status, 201, fresh.text);
    assert.notEqual(fresh.body.order_id, first.body.order_id);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
    const again = await place('speed_audit');
    assert.equal(again.body.order_id, fresh.body.order_id, 'the key now names the new order');
    const old = await t.handle.db
      .selectFrom('audit_orders')
      .select('idempotency_key')
      .where('id', '=', first.body.order_id)
      .executeTakeFirstOrThrow();
    assert.equal(old.idempotency_key, null);
  });
});
