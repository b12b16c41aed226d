import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { dropDatabase, ensureDatabase } from '../../../shared/db/connect.ts';
import { listMigrations } from '../../../shared/db/migrate.ts';

// sql/035 moves A's monitor_scans/monitor_alerts and B's b_site_scans/b_site_alerts into
// watch_scans/watch_alerts: a database migrated up to 034 with rows of both (their ids colliding
// across the old tables), then 035 on: every row is in the new tables, each alert still on its
// own scan, and the variants' views show the rows they showed before; 036 then turns a monitored
// site's webhook_url into a webhook_endpoints row the site points at.

const name = `sightline_t_mig_${randomBytes(4).toString('hex')}`;
let url: string;

before(async () => {
  const admin = testAdmin();
  await ensureDatabase(admin, name);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  url = u.toString();
});
after(() => dropDatabase(testAdmin(), name));

function testAdmin(): string {
  const admin = process.env.SIGHTLINE_TEST_ADMIN_URL;
  if (!admin) throw new Error('run the tests through scripts/run-tests.mjs');
  return admin;
}

async function apply(client: pg.Client, from: number, upTo: number) {
  for (const m of listMigrations()) {
    if (m.id < from || m.id > upTo) continue;
    await client.query('begin');
    await client.query(fs.readFileSync(m.file, 'utf8'));
    await client.query('commit');
  }
}

const one = async <T>(client: pg.Client, text: string, values: unknown[] = []) =>
  (await client.query(text, values)).rows[0] as T;

/** Rows of both variants as 034 kept them; A's and B's ids are 1 and 2 alike. */
async function seedOldTables(client: pg.Client) {
  const a = await one<{ id: string }>(
    client,
    `insert into accounts (email, variant, tier) values ('a@x.test', 'A', 'agent') returning id`,
  );
  const b = await one<{ id: string }>(
    client,
    `insert into accounts (email, variant, tier) values ('b@x.test', 'B', 'optimisation') returning id`,
  );
  const m = await one<{ id: string }>(
    client,
    `insert into monitored_sites (account_id, url, label, site_type, webhook_url)
     values ($1, 'https://a.test/', 'A', 'own', 'https://a.test/hook') returning id`,
    [a.id],
  );
  for (const [due, score] of [
    ['2026-01-01T00:00:00Z', 90],
    ['2026-01-02T00:00:00Z', 70],
  ] as const)
    await client.query(
      `insert into monitor_scans (site_id, due_at, status, overall_score, dimension_scores, issues, model_version, scan_mode)
       values ($1, $2, 'ok', $3, '{"seo": 80}', '["x"]', '1.0.0', 'quick')`,
      [m.id, due, score],
    );
  await client.query(
    `insert into monitor_alerts (site_id, monitor_scan_id, alert_type, previous_score, current_score, delta, message, scanned_at, delivery_status)
     values ($1, 2, 'score_drop', 90, 70, -20, 'A dropped', now(), 'no_webhook')`,
    [m.id],
  );
  const s = await one<{ id: string }>(
    client,
    `insert into agent_sites (account_id, tracking_id, url, domain, label, ingest_token_hash, ingest_token_prefix)
     values ($1, 'site_t', 'https://b.test/', 'b.test', 'B', '\\x01', 'it_') returning id`,
    [b.id],
  );
  await client.query(`insert into b_site_scans (site_id, trigger) values ($1, 'on_demand')`, [s.id]);
  await client.query(
    `insert into b_site_scans (site_id, trigger, due_at, status, overall_score, dimension_scores)
     values ($1, 'scheduled', '2026-01-05T03:00:00Z', 'ok', 40, '{"structure": 40}')`,
    [s.id],
  );
  const w = await one<{ id: string }>(
    client,
    `insert into webhook_endpoints (account_id, url, events, threshold, secret)
     values ($1, 'https://hook.test/', '{score_drop}', '{"overall": 50}', 'whsec_x') returning id`,
    [b.id],
  );
  await client.query(
    `insert into b_site_alerts (site_scan_id, webhook_id, site_id, metric, alert_type, previous_score, current_score, delta, message, scanned_at)
     values (2, $1, $2, 'overall', 'score_drop', 60, 40, -20, 'B dropped', now())`,
    [w.id, s.id],
  );
  return { monitoredSite: m.id, agentSite: s.id };
}

it('035 moves both variants’ scans and alerts into watch_scans and watch_alerts; 036 makes webhook_url an endpoint', async () => {
  const moving = listMigrations().find((m) => m.name === 'watch_tables')!;
  assert.ok(moving, 'the migration exists');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await apply(client, 1, moving.id - 1);
    const sites = await seedOldTables(client);
    await apply(client, moving.id, Math.max(...listMigrations().map((m) => m.id)));

    const counts = await one<{ a: string; b: string; aa: string; ba: string }>(
      client,
      `select count(*) filter (where monitored_site_id is not null) as a,
              count(*) filter (where agent_site_id is not null) as b,
              (select count(*) from watch_alerts where monitored_site_id is not null) as aa,
              (select count(*) from watch_alerts where agent_site_id is not null) as ba
         from watch_scans`,
    );
    assert.deepEqual(counts, { a: '2', b: '2', aa: '1', ba: '1' });

    const aScans = await client.query(
      'select id, site_id, overall_score, scan_mode from monitor_scans order by id',
    );
    assert.deepEqual(
      aScans.rows.map((r) => [r.id, r.site_id, r.overall_score, r.scan_mode]),
      [
        ['1', sites.monitoredSite, 90, 'quick'],
        ['2', sites.monitoredSite, 70, 'quick'],
      ],
      'A keeps its scan ids',
    );
    const aAlert = await one<{ id: string; monitor_scan_id: string; delivery_status: string }>(
      client,
      'select id, monitor_scan_id, delivery_status from monitor_alerts',
    );
    assert.deepEqual(aAlert, { id: '1', monitor_scan_id: '2', delivery_status: 'no_webhook' });

    const bAlert = await one<{ id: string; site_id: string; score: number; trigger: string }>(
      client,
      `select a.id, a.site_id, s.overall_score as score, s.trigger
         from b_site_alerts a join b_site_scans s on s.id = a.site_scan_id`,
    );
    assert.equal(bAlert.site_id, sites.agentSite);
    assert.equal(bAlert.score, 40, 'the B alert is still on its scheduled scan');
    assert.equal(bAlert.trigger, 'scheduled');
    assert.ok(Number(bAlert.id) > 1, 'a moved B alert never reuses an old B id (its delivery dedupe key)');

    const next = await one<{ id: string }>(
      client,
      `insert into watch_scans (monitored_site_id, due_at, status, overall_score, dimension_scores, issues, model_version)
       values ($1, '2026-01-03T00:00:00Z', 'ok', 75, '{}', '[]', '1.0.0') returning id`,
      [sites.monitoredSite],
    );
    assert.equal(Number(next.id), 5, 'new scans number after every moved row');
    const tables = await client.query<{ table_name: string; table_type: string }>(
      `select table_name, table_type from information_schema.tables
        where table_name in ('monitor_scans', 'monitor_alerts', 'b_site_scans', 'b_site_alerts') order by 1`,
    );
    assert.ok(
      tables.rows.every((t) => t.table_type === 'VIEW'),
      'the old names are views now',
    );
    assert.equal(tables.rows.length, 4);

    // 036: the site's webhook_url is an endpoint it points at, signed with the account's secret.
    const hook = await one<{ url: string; secret: string | null; events: string[] }>(
      client,
      `select e.url, e.secret, e.events from monitored_sites m join webhook_endpoints e on e.id = m.webhook_endpoint_id
        where m.id = $1`,
      [sites.monitoredSite],
    );
    assert.deepEqual(hook, { url: 'https://a.test/hook', secret: null, events: ['monitoring.alert'] });
    await client.query('delete from monitored_sites where id = $1', [sites.monitoredSite]);
    const left = await one<{ n: string }>(
      client,
      `select count(*) as n from webhook_endpoints where secret is null`,
    );
    assert.equal(left.n, '0', 'the endpoint goes with its site');
  } finally {
    await client.end();
  }
});
