import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../cli/main.ts';
import { resetConfig } from '../../../shared/config.ts';
import { fanOutDueSites } from '../../../shared/monitoring/fanout.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// The monitoring endpoints through the real API and database: subscription and quota rules
// (403 problem+json), the resource shapes of interface.md, PATCH/DELETE, address policy on
// webhook_url, comparison, and the operator CLI that sets plans.

let t: TestApi;
let spec: SpecChecker;
let site: FixtureServer;

before(async () => {
  site = await startFixtureServer({ routes: { '/': (_q, r) => r.end('ok') } });
  t = await startTestApi({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
  spec = await SpecChecker.load(t.url);
  process.env.DATABASE_URL = t.database.url;
  resetConfig();
});
after(async () => {
  delete process.env.DATABASE_URL;
  resetConfig();
  await t.close();
  await site.close();
});

const SITES = '/api/v1/monitor/sites';
const page = (p: string) => `${site.origin}${p}`;

function assertProblem(
  res: { status: number; headers: Headers; body: { code: string } },
  status: number,
  code: string,
) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, code);
}

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, json: () => JSON.parse(out.join('\n')) };
}

async function accountOf(key: string): Promise<number> {
  return (await call(t.url, '/api/v1/account', { key })).body.id;
}

describe('monitoring: subscription and quota rules', () => {
  it('answers 403 subscription_required (problem+json) without an active subscription', async () => {
    const key = await t.newKey('A', 'agent');
    for (const [method, path, body] of [
      ['GET', SITES, undefined],
      ['POST', SITES, { url: page('/') }],
      ['POST', '/api/v1/monitor/competitors', { url: page('/c'), label: 'C' }],
      ['GET', `${SITES}/1/latest`, undefined],
      ['GET', '/api/v1/monitor/compare/1', undefined],
    ] as const) {
      const res = await call(t.url, path, { method, key, body });
      assertProblem(res, 403, 'subscription_required');
      spec.check(
        method,
        path.replace(/\/1(\/|$)/, '/{id}$1').replace('compare/{id}', 'compare/{siteId}'),
        res,
      );
    }
  });

  it('refuses a B key (variant_mismatch) and a missing key (401)', async () => {
    const b = await t.newKey('B', 'optimisation');
    assertProblem(await call(t.url, SITES, { key: b }), 403, 'variant_mismatch');
    assertProblem(await call(t.url, SITES), 401, 'unauthorized');
  });

  it('shares the quota between own sites and competitors: 403 quota_exceeded past it, room again after a delete', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call(t.url, SITES, { method: 'POST', key, body: { url: page(`/own-${i}`) } });
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.id);
    }
    const comp = await call(t.url, '/api/v1/monitor/competitors', {
      method: 'POST',
      key,
      body: { url: page('/rival'), label: 'Rival' },
    });
    assert.equal(comp.status, 201, comp.text);
    spec.check('POST', '/api/v1/monitor/competitors', comp);

    const overOwn = await call(t.url, SITES, { method: 'POST', key, body: { url: page('/own-5') } });
    assertProblem(overOwn, 403, 'quota_exceeded');
    assert.match(overOwn.body.detail, /5 sites/);
    spec.check('POST', SITES, overOwn);
    const overComp = await call(t.url, '/api/v1/monitor/competitors', {
      method: 'POST',
      key,
      body: { url: page('/rival-2'), label: 'Rival 2' },
    });
    assertProblem(overComp, 403, 'quota_exceeded');

    const del = await call(t.url, `${SITES}/${ids[0]}`, { method: 'DELETE', key });
    assert.equal(del.status, 204);
    spec.check('DELETE', `${SITES}/{id}`, del);
    const again = await call(t.url, SITES, { method: 'POST', key, body: { url: page('/own-5') } });
    assert.equal(again.status, 201, again.text);
  });

  it('checks the quota under a lock: concurrent adds never overshoot it', async () => {
    const key = await t.newKey('A', 'pro', { plan: 'growth' });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(t.url, SITES, { method: 'POST', key, body: { url: page(`/race-${i}`) } }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 5);
    assert.equal(results.filter((r) => r.status === 403 && r.body.code === 'quota_exceeded').length, 3);
  });
});

describe('monitoring: sites', () => {
  it('creates an own site (201, Location, due now) and lists it with the subscription', async () => {
    const key = await t.newKey('A', 'free', { plan: 'agency' });
    const res = await call(t.url, SITES, {
      method: 'POST',
      key,
      body: { url: page('/shop'), label: 'My shop', webhook_url: page('/hook'), alert_threshold: 7 },
    });
    assert.equal(res.status, 201, res.text);
    spec.check('POST', SITES, res);
    assert.equal(res.headers.get('location'), `${SITES}/${res.body.id}`);
    assert.equal(res.body.url, page('/shop'));
    assert.equal(res.body.label, 'My shop');
    assert.equal(res.body.status, 'active');
    assert.equal(res.body.siteType, 'own');
    assert.equal(res.body.lastScannedAt, null);
    assert.equal(res.body.webhook_url, page('/hook'));
    assert.equal(res.body.alert_threshold, 7);
    // the signing secret is handed out with the webhook, and it is the one alerts are signed with
    assert.match(res.body.webhook_secret, /^whsec_/);
    const { webhook_secret } = await t.handle.db
      .selectFrom('accounts')
      .select('webhook_secret')
      .where('id', '=', (await call(t.url, '/api/v1/account', { key })).body.id.toString())
      .executeTakeFirstOrThrow();
    assert.equal(res.body.webhook_secret, webhook_secret);
    assert.ok(Number.isInteger(res.body.nextScanDueAt));
    assert.ok(res.body.nextScanDueAt <= Date.now() + 5_000, 'a new site is due at once');

    const list = await call(t.url, SITES, { key });
    assert.equal(list.status, 200);
    spec.check('GET', SITES, list);
    assert.deepEqual(
      list.body.sites.map((s: { id: number }) => s.id),
      [res.body.id],
    );
    const sub = list.body.subscription;
    assert.equal(sub.tier, 'agency');
    assert.equal(sub.siteQuota, 25);
    assert.equal(sub.status, 'active');
    assert.equal(sub.scanFrequency, 'daily');
    assert.equal(sub.sitesUsed, 1);
    // The token is stored hashed: the URL was shown once (at creation); its prefix says which is live.
    assert.equal(sub.statusPageUrl, null);
    assert.match(sub.statusPageTokenPrefix, /^[A-Za-z0-9_-]{6}$/);

    const one = await call(t.url, `${SITES}/${res.body.id}`, { key });
    assert.equal(one.status, 200);
    spec.check('GET', `${SITES}/{id}`, one);
    const { webhook_secret: _shownOnce, ...created } = res.body;
    assert.deepEqual(one.body, created, 'reading the site returns what was created, without the secret');
  });

  it('defaults the label to the host and alert_threshold to 10; refuses a duplicate URL with 409', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const res = await call(t.url, SITES, { method: 'POST', key, body: { url: site.origin } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.label, '127.0.0.1');
    assert.equal(res.body.alert_threshold, 10);
    assert.equal(res.body.webhook_url, null);
    const dup = await call(t.url, SITES, { method: 'POST', key, body: { url: `${site.origin}/` } });
    assertProblem(dup, 409, 'site_exists');
    spec.check('POST', SITES, dup);
  });

  it('validates webhook_url by the address policy and the body by its schema (400 naming the field)', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    for (const hook of ['http://169.254.169.254/latest', 'http://10.0.0.7/hook', 'ftp://example.com/x']) {
      const res = await call(t.url, SITES, {
        method: 'POST',
        key,
        body: { url: page('/w'), webhook_url: hook },
      });
      assertProblem(res, 400, 'url_not_allowed');
      assert.equal(res.body.errors[0].field, 'webhook_url');
      spec.check('POST', SITES, res);
    }
    const bad = await call(t.url, SITES, {
      method: 'POST',
      key,
      body: { url: page('/w'), alert_threshold: 0 },
    });
    assertProblem(bad, 400, 'invalid_request');
    assert.equal(bad.body.errors[0].field, 'body.alert_threshold');
    const target = await call(t.url, SITES, { method: 'POST', key, body: { url: 'http://127.0.0.1:1/' } });
    assertProblem(target, 400, 'url_not_allowed');
  });

  it('an own site declares its IndexNow key (and key location on its host); PATCH null removes both', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const res = await call(t.url, SITES, {
      method: 'POST',
      key,
      body: { url: page('/inx'), indexnow_key: 'f3b9c2a1d4e5f607', indexnow_key_location: '/keys/inx.txt' },
    });
    assert.equal(res.status, 201, res.text);
    spec.check('POST', SITES, res);
    assert.equal(res.body.indexnow_key, 'f3b9c2a1d4e5f607');
    assert.equal(res.body.indexnow_key_location, page('/keys/inx.txt'));
    const elsewhere = await call(t.url, `${SITES}/${res.body.id}`, {
      method: 'PATCH',
      key,
      body: { indexnow_key_location: 'https://elsewhere.example/k.txt' },
    });
    assertProblem(elsewhere, 400, 'invalid_request');
    const badKey = await call(t.url, SITES, {
      method: 'POST',
      key,
      body: { url: page('/inx2'), indexnow_key: 'short' },
    });
    assertProblem(badKey, 400, 'invalid_request');
    assert.equal(badKey.body.errors[0].field, 'body.indexnow_key');
    const cleared = await call(t.url, `${SITES}/${res.body.id}`, {
      method: 'PATCH',
      key,
      body: { indexnow_key: null },
    });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.indexnow_key, null);
    assert.equal(cleared.body.indexnow_key_location, null);
  });

  it('PATCH of a key location alone needs a key on the site: 400 naming the field, not a 500', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const bare = (await call(t.url, SITES, { method: 'POST', key, body: { url: page('/inx3') } })).body;
    assert.equal(bare.indexnow_key, null);
    const res = await call(t.url, `${SITES}/${bare.id}`, {
      method: 'PATCH',
      key,
      body: { indexnow_key_location: '/k.txt' },
    });
    assertProblem(res, 400, 'invalid_request');
    spec.check('PATCH', `${SITES}/{id}`, res);
    assert.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['body.indexnow_key_location'],
    );
    const kept = (await call(t.url, `${SITES}/${bare.id}`, { key })).body;
    assert.equal(kept.indexnow_key_location, null, 'nothing stored');

    // With a key in the same request, or already on the site, a location alone is taken.
    const both = await call(t.url, `${SITES}/${bare.id}`, {
      method: 'PATCH',
      key,
      body: { indexnow_key: 'a1b2c3d4e5f6', indexnow_key_location: '/k.txt' },
    });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.body.indexnow_key_location, page('/k.txt'));
    const moved = await call(t.url, `${SITES}/${bare.id}`, {
      method: 'PATCH',
      key,
      body: { indexnow_key_location: '/keys/k.txt' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.indexnow_key, 'a1b2c3d4e5f6');
    assert.equal(moved.body.indexnow_key_location, page('/keys/k.txt'));

    // Once the key is removed, a location alone is refused again.
    await call(t.url, `${SITES}/${bare.id}`, { method: 'PATCH', key, body: { indexnow_key: null } });
    const again = await call(t.url, `${SITES}/${bare.id}`, {
      method: 'PATCH',
      key,
      body: { indexnow_key_location: '/k.txt' },
    });
    assertProblem(again, 400, 'invalid_request');
    assert.equal(again.body.errors[0].field, 'body.indexnow_key_location');
  });

  it('PATCH changes label, webhook_url and alert_threshold; competitors take only a label', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const own = (await call(t.url, SITES, { method: 'POST', key, body: { url: page('/p') } })).body;
    const res = await call(t.url, `${SITES}/${own.id}`, {
      method: 'PATCH',
      key,
      body: { label: 'Renamed', webhook_url: page('/hook'), alert_threshold: 25 },
    });
    assert.equal(res.status, 200, res.text);
    spec.check('PATCH', `${SITES}/{id}`, res);
    assert.equal(res.body.label, 'Renamed');
    assert.equal(res.body.webhook_url, page('/hook'));
    assert.equal(res.body.alert_threshold, 25);
    const cleared = await call(t.url, `${SITES}/${own.id}`, {
      method: 'PATCH',
      key,
      body: { webhook_url: null },
    });
    assert.equal(cleared.body.webhook_url, null);
    assert.equal(cleared.body.label, 'Renamed');
    assertProblem(
      await call(t.url, `${SITES}/${own.id}`, { method: 'PATCH', key, body: {} }),
      400,
      'invalid_request',
    );
    assertProblem(
      await call(t.url, `${SITES}/${own.id}`, {
        method: 'PATCH',
        key,
        body: { webhook_url: 'http://127.0.0.1:1/' },
      }),
      400,
      'url_not_allowed',
    );

    const comp = (
      await call(t.url, '/api/v1/monitor/competitors', {
        method: 'POST',
        key,
        body: { url: page('/cp'), label: 'Cp' },
      })
    ).body;
    assert.equal(comp.siteType, 'competitor');
    const refused = await call(t.url, `${SITES}/${comp.id}`, {
      method: 'PATCH',
      key,
      body: { webhook_url: page('/h') },
    });
    assertProblem(refused, 400, 'invalid_request');
    const renamed = await call(t.url, `${SITES}/${comp.id}`, {
      method: 'PATCH',
      key,
      body: { label: 'Rival Ltd' },
    });
    assert.equal(renamed.body.label, 'Rival Ltd');
  });

  it("hides other accounts' sites (404) and answers 404 not_scanned_yet before the first scan", async () => {
    const mine = await t.newKey('A', 'free', { plan: 'growth' });
    const theirs = await t.newKey('A', 'free', { plan: 'growth' });
    const s = (await call(t.url, SITES, { method: 'POST', key: mine, body: { url: page('/mine') } })).body;
    for (const [method, path] of [
      ['GET', `${SITES}/${s.id}`],
      ['GET', `${SITES}/${s.id}/latest`],
      ['PATCH', `${SITES}/${s.id}`],
      ['DELETE', `${SITES}/${s.id}`],
      ['GET', `/api/v1/monitor/compare/${s.id}`],
    ] as const) {
      const res = await call(t.url, path, {
        method,
        key: theirs,
        body: method === 'PATCH' ? { label: 'x' } : undefined,
      });
      assertProblem(res, 404, 'not_found');
    }
    const latest = await call(t.url, `${SITES}/${s.id}/latest`, { key: mine });
    assertProblem(latest, 404, 'not_scanned_yet');
    spec.check('GET', `${SITES}/{id}/latest`, latest);
  });
});

describe('monitoring: removal', () => {
  it('DELETE removes the site and its pending scan job', async () => {
    const key = await t.newKey('A', 'free', { plan: 'agency' });
    const s = (await call(t.url, SITES, { method: 'POST', key, body: { url: page('/gone') } })).body;
    await fanOutDueSites(t.handle.db, { batch: 1000 });
    const job = () =>
      t.handle.pool.query('select 1 from graphile_worker.jobs where key = $1', [`monitor_scan:${s.id}`]);
    assert.equal((await job()).rowCount, 1, 'scheduled');
    assert.equal((await call(t.url, `${SITES}/${s.id}`, { method: 'DELETE', key })).status, 204);
    assert.equal((await job()).rowCount, 0, 'its job is gone');
    assertProblem(await call(t.url, `${SITES}/${s.id}`, { key }), 404, 'not_found');
    const list = await call(t.url, SITES, { key });
    assert.equal(list.body.subscription.sitesUsed, 0);
  });
});

describe('monitoring: latest scan and comparison', () => {
  it('presents the latest scan and compares an own site with every tracked competitor', async () => {
    const key = await t.newKey('A', 'agent', { plan: 'agency' });
    const own = (await call(t.url, SITES, { method: 'POST', key, body: { url: page('/me'), label: 'Me' } }))
      .body;
    const c1 = (
      await call(t.url, '/api/v1/monitor/competitors', {
        method: 'POST',
        key,
        body: { url: page('/c1'), label: 'C1' },
      })
    ).body;
    const c2 = (
      await call(t.url, '/api/v1/monitor/competitors', {
        method: 'POST',
        key,
        body: { url: page('/c2'), label: 'C2' },
      })
    ).body;
    // Scans recorded as the worker records them (the worker's own path is in monitor-alerts.test.ts).
    const record = async (
      siteId: number,
      overall: number,
      dims: Record<string, number>,
      issues: string[],
      ago: string,
    ) => {
      await t.handle.pool.query(
        `insert into monitor_scans (site_id, due_at, status, overall_score, dimension_scores, issues, model_version, scanned_at)
         values ($1, now() - $5::interval, 'ok', $2, $3, $4, '1.0.0', now() - $5::interval)`,
        [siteId, overall, JSON.stringify(dims), JSON.stringify(issues), ago],
      );
    };
    const dims = { seo: 80, speed: 70, copy: 60, social: 50, local: 40, ai: 30 };
    await record(own.id, 50, { ...dims, seo: 10 }, ['old'], '2 days');
    await record(own.id, 64, { ...dims, competitor: 50 }, ['Page is missing a meta description'], '1 hour');
    await record(c1.id, 70, dims, [], '1 hour');

    const latest = await call(t.url, `${SITES}/${own.id}/latest`, { key });
    assert.equal(latest.status, 200, latest.text);
    spec.check('GET', `${SITES}/{id}/latest`, latest);
    assert.equal(latest.body.siteId, own.id);
    assert.equal(latest.body.overallScore, 64);
    assert.deepEqual(Object.keys(latest.body.dimensionScores), [
      'seo',
      'speed',
      'copy',
      'social',
      'local',
      'competitor',
      'ai',
    ]);
    assert.equal(latest.body.dimensionScores.competitor, 50);
    assert.deepEqual(latest.body.issues, ['Page is missing a meta description']);
    assert.ok(Math.abs(latest.body.scannedAt - (Date.now() - 3_600_000)) < 60_000, 'epoch ms');

    const cmp = await call(t.url, `/api/v1/monitor/compare/${own.id}`, { key });
    assert.equal(cmp.status, 200, cmp.text);
    spec.check('GET', '/api/v1/monitor/compare/{siteId}', cmp);
    assert.deepEqual(
      { id: cmp.body.own.id, label: cmp.body.own.label, overall: cmp.body.own.latestScan.overallScore },
      { id: own.id, label: 'Me', overall: 64 },
    );
    assert.deepEqual(
      cmp.body.competitors.map((c: { id: number; latestScan: { overallScore: number } | null }) => [
        c.id,
        c.latestScan?.overallScore ?? null,
      ]),
      [
        [c1.id, 70],
        [c2.id, null],
      ],
    );
    assert.equal(cmp.body.competitors[0].latestScan.dimensionScores.competitor, undefined);

    const onCompetitor = await call(t.url, `/api/v1/monitor/compare/${c1.id}`, { key });
    assertProblem(onCompetitor, 400, 'invalid_request');
  });
});

describe('sightline subscriptions (operator CLI)', () => {
  it('sets and shows a plan with its status token and page URL; none ends monitoring access', async () => {
    const key = await t.newKey('A', 'free');
    const account = String(await accountOf(key));
    const none = await cli('subscriptions', 'show', '--account', account, '--json');
    assert.equal(none.code, 0);
    assert.equal(none.json().plan, null);
    assert.equal(none.json().status, 'none');

    const set = await cli('subscriptions', 'set', '--account', account, '--plan', 'growth', '--json');
    assert.equal(set.code, 0, set.err.join('\n'));
    const g = set.json();
    assert.deepEqual(
      { plan: g.plan, status: g.status, siteQuota: g.siteQuota, scanFrequency: g.scanFrequency },
      { plan: 'growth', status: 'active', siteQuota: 5, scanFrequency: 'weekly' },
    );
    // Shown once, at creation.
    assert.match(g.statusToken, /^[A-Za-z0-9_-]{20,}$/);
    assert.ok(g.statusPageUrl.endsWith(`/status/${g.statusToken}`));
    assert.equal(g.statusTokenPrefix, g.statusToken.slice(0, 6));
    assert.equal((await fetch(`${t.url}/status/${g.statusToken}`)).status, 200);
    assert.equal((await call(t.url, SITES, { key })).status, 200);

    const up = (await cli('subscriptions', 'set', '--account', account, '--plan', 'agency', '--json')).json();
    assert.equal(up.siteQuota, 25);
    assert.equal(up.statusToken, undefined, 'a plan change issues no new token');
    assert.equal(up.statusTokenPrefix, g.statusTokenPrefix, 'the status link survives a plan change');
    assert.equal((await fetch(`${t.url}/status/${g.statusToken}`)).status, 200);
    const shown = (await cli('subscriptions', 'show', '--account', account, '--json')).json();
    assert.deepEqual(shown, up);
    const text = await cli('subscriptions', 'show', '--account', account);
    assert.ok(!text.out.join('\n').includes(g.statusToken), 'show cannot print the token');
    assert.match(text.out.join('\n'), /rotate-status-token/);

    const ended = await cli('subscriptions', 'set', '--account', account, '--plan', 'none', '--json');
    assert.equal(ended.json().status, 'canceled');
    assertProblem(await call(t.url, SITES, { key }), 403, 'subscription_required');
    const page = await fetch(`${t.url}/status/${g.statusToken}`);
    assert.equal(page.status, 404, 'an ended subscription has no public page');
  });

  it('rotate-status-token prints a new link once; the old link stops working at once', async () => {
    const key = await t.newKey('A', 'free');
    const account = String(await accountOf(key));
    const g = (await cli('subscriptions', 'set', '--account', account, '--plan', 'growth', '--json')).json();
    assert.equal((await fetch(`${t.url}/status/${g.statusToken}`)).status, 200);

    const rotated = await cli('subscriptions', 'rotate-status-token', '--account', account);
    assert.equal(rotated.code, 0, rotated.err.join('\n'));
    const line = rotated.out.find((l) => l.includes('/status/'));
    assert.ok(line, rotated.out.join('\n'));
    const url = line.slice(line.indexOf('http'));
    const token = url.slice(url.lastIndexOf('/') + 1);
    assert.notEqual(token, g.statusToken);
    assert.equal((await fetch(`${t.url}/status/${token}`)).status, 200);
    assert.equal((await fetch(`${t.url}/status/${g.statusToken}`)).status, 404, 'the old link is dead');

    const json = (await cli('subscriptions', 'rotate-status-token', '--account', account, '--json')).json();
    assert.equal((await fetch(`${t.url}/status/${json.statusToken}`)).status, 200);
    assert.equal((await fetch(`${t.url}/status/${token}`)).status, 404);
    const list = await call(t.url, SITES, { key });
    assert.equal(list.body.subscription.statusPageTokenPrefix, json.statusToken.slice(0, 6));

    const noSub = String(await accountOf(await t.newKey('A', 'free')));
    const refused = await cli('subscriptions', 'rotate-status-token', '--account', noSub);
    assert.equal(refused.code, 1);
    assert.match(refused.err.join('\n'), /no monitoring subscription/);
  });

  it('refuses a bad plan, an unknown account and a variant B account', async () => {
    assert.equal((await cli('subscriptions', 'set', '--account', '1', '--plan', 'gold')).code, 2);
    assert.equal((await cli('subscriptions', 'show', '--account', '999999')).code, 1);
    const b = await t.newKey('B', 'intelligence');
    const r = await cli('subscriptions', 'set', '--account', String(await accountOf(b)), '--plan', 'growth');
    assert.equal(r.code, 2);
    assert.match(r.err.join('\n'), /variant A/);
  });
});
