import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fanOutDueSites } from '../../../shared/monitoring/fanout.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// Monitoring details a new user hit: a scan on demand (one pending per site, counted against the
// key, recorded like a scheduled one), resuming a paused site makes it due at once, and a
// competitor given a webhook_url is refused.

let t: TestApi;
let spec: SpecChecker;
let site: FixtureServer;

before(async () => {
  site = await startFixtureServer({
    routes: {
      '/': (_q, r) =>
        r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Shop</h1></body></html>',
          ),
    },
  });
  t = await startTestApi({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
  spec = await SpecChecker.load(t.url);
});
after(async () => {
  await t.close();
  await site.close();
});

const SITES = '/api/v1/monitor/sites';
const dbNow = async () =>
  Number(
    (await t.handle.pool.query('select floor(extract(epoch from now()) * 1000)::bigint as n')).rows[0].n,
  );
const jobsOf = async (siteId: number) =>
  (
    await t.handle.pool.query('select id from graphile_worker.jobs where key = $1', [
      `monitor_scan:${siteId}`,
    ])
  ).rowCount ?? 0;

describe('monitoring: competitors', () => {
  it('a competitor given a webhook_url or alert_threshold is refused with 400 naming the field', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    for (const [field, value] of [
      ['webhook_url', `${site.origin}/hook`],
      ['alert_threshold', 5],
    ] as const) {
      const res = await call(t.url, '/api/v1/monitor/competitors', {
        method: 'POST',
        key,
        body: { url: `${site.origin}/rival-${field}`, [field]: value },
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'invalid_request');
      assert.deepEqual(
        res.body.errors.map((e: { field: string }) => e.field),
        [`body.${field}`],
      );
      assert.match(res.body.errors[0].message, /competitor sites never alert/);
    }
    assert.equal((await call(t.url, SITES, { key })).body.sites.length, 0, 'nothing was added');
    const ok = await call(t.url, '/api/v1/monitor/competitors', {
      method: 'POST',
      key,
      body: { url: `${site.origin}/rival` },
    });
    assert.equal(ok.status, 201);
  });
});

describe('monitoring: pause and resume', () => {
  it('resuming a paused site makes it due at once; the next fan-out schedules it', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const s = (await call(t.url, SITES, { method: 'POST', key, body: { url: `${site.origin}/resume` } }))
      .body;
    // Its first slot is taken: the site moves to its next weekly slot.
    await fanOutDueSites(t.handle.db, { batch: 1000 });
    await t.handle.pool.query('delete from graphile_worker._private_jobs where key = $1', [
      `monitor_scan:${s.id}`,
    ]);
    const scheduled = (await call(t.url, `${SITES}/${s.id}`, { key })).body.nextScanDueAt;
    assert.ok(scheduled > (await dbNow()) + 3_600_000, 'next slot is later');

    const paused = await call(t.url, `${SITES}/${s.id}`, {
      method: 'PATCH',
      key,
      body: { status: 'paused' },
    });
    assert.equal(paused.body.nextScanDueAt, scheduled, 'pausing keeps the slot');
    const label = await call(t.url, `${SITES}/${s.id}`, {
      method: 'PATCH',
      key,
      body: { label: 'Still paused' },
    });
    assert.equal(label.body.nextScanDueAt, scheduled);
    const resumed = await call(t.url, `${SITES}/${s.id}`, {
      method: 'PATCH',
      key,
      body: { status: 'active' },
    });
    assert.equal(resumed.status, 200);
    assert.ok(resumed.body.nextScanDueAt <= (await dbNow()), 'due now');
    const again = await call(t.url, `${SITES}/${s.id}`, { method: 'PATCH', key, body: { status: 'active' } });
    assert.equal(again.body.nextScanDueAt, resumed.body.nextScanDueAt, 'an active site keeps its slot');
    await fanOutDueSites(t.handle.db, { batch: 1000 });
    assert.equal(await jobsOf(s.id), 1, 'scheduled by the next tick');
  });
});

describe('monitoring: scan now', () => {
  it('queues one scan per site, answers pending while it waits, counts each call, and records the result', async () => {
    const key = await t.newKey('A', 'free', { plan: 'agency' });
    const s = (await call(t.url, SITES, { method: 'POST', key, body: { url: `${site.origin}/` } })).body;
    // Take the site's first scheduled slot (and its job) out of the way: this is about asking.
    await fanOutDueSites(t.handle.db, { batch: 1000 });
    await t.handle.pool.query('delete from graphile_worker._private_jobs where key = $1', [
      `monitor_scan:${s.id}`,
    ]);

    const first = await call(t.url, `${SITES}/${s.id}/scan`, { method: 'POST', key });
    assert.equal(first.status, 202, first.text);
    spec.check('POST', `${SITES}/{id}/scan`, first);
    assert.equal(first.body.status, 'queued');
    assert.equal(first.headers.get('location'), `${SITES}/${s.id}/latest`);
    const second = await call(t.url, `${SITES}/${s.id}/scan`, { method: 'POST', key });
    assert.equal(second.body.status, 'pending');
    assert.equal(second.body.dueAt, first.body.dueAt);
    assert.equal(await jobsOf(s.id), 1, 'one pending scan per site');
    assert.equal(
      Number(second.headers.get('x-ratelimit-remaining')),
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
      'each call counts against the key',
    );
  });

  it('runs like a scheduled scan: the result appears at /latest; then a new ask queues again', async () => {
    const key = await t.newKey('A', 'free', { plan: 'agency' });
    const s = (await call(t.url, SITES, { method: 'POST', key, body: { url: `${site.origin}/?now` } })).body;
    await t.handle.pool.query(
      `update monitored_sites set next_scan_due_at = now() + interval '1 day' where id = $1`,
      [s.id],
    );
    const asked = await call(t.url, `${SITES}/${s.id}/scan`, { method: 'POST', key });
    assert.equal(asked.body.status, 'queued');
    // Until now no worker ran: the job waited. A worker runs it.
    const { startWorker } = await import('../../../worker/runner.ts');
    const { loadConfig } = await import('../../../shared/config.ts');
    const w = await startWorker(
      loadConfig({ ...process.env, LOG_LEVEL: 'silent', SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` }),
      t.database.url,
      { metricsPort: null, crontab: null },
    );
    try {
      let latest = await call(t.url, `${SITES}/${s.id}/latest`, { key });
      while (latest.status === 404) {
        await new Promise((r) => setTimeout(r, 200));
        latest = await call(t.url, `${SITES}/${s.id}/latest`, { key });
      }
      assert.equal(latest.status, 200, latest.text);
      assert.equal(latest.body.status, 'ok');
      assert.equal(latest.body.scannedAt >= asked.body.dueAt, true);
      while ((await jobsOf(s.id)) > 0) await new Promise((r) => setTimeout(r, 100));
      const again = await call(t.url, `${SITES}/${s.id}/scan`, { method: 'POST', key });
      assert.equal(again.body.status, 'queued');
      assert.ok(again.body.dueAt > asked.body.dueAt);
    } finally {
      await w.close();
    }
  });

  it('refuses a paused site (409 site_paused) and hides other accounts’ sites (404)', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const other = await t.newKey('A', 'free', { plan: 'growth' });
    const s = (await call(t.url, SITES, { method: 'POST', key, body: { url: `${site.origin}/p2` } })).body;
    const foreign = await call(t.url, `${SITES}/${s.id}/scan`, { method: 'POST', key: other });
    assert.equal(foreign.status, 404);
    await call(t.url, `${SITES}/${s.id}`, { method: 'PATCH', key, body: { status: 'paused' } });
    const paused = await call(t.url, `${SITES}/${s.id}/scan`, { method: 'POST', key });
    assert.equal(paused.status, 409);
    assert.equal(paused.body.code, 'site_paused');
    spec.check('POST', `${SITES}/{id}/scan`, paused);
  });
});
