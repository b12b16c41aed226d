import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { fanOutBSites } from '../../../shared/b-sites/schedule.ts';
import { registeredSiteWatch } from '../../../shared/b-sites/watch-kind.ts';
import { loadConfig } from '../../../shared/config.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import { createLogger } from '../../../shared/logger.ts';
import { createUrlPolicy } from '../../../shared/net/url-policy.ts';
import { runScan } from '../../../shared/scans/gather-and-score.ts';
import { requestScan } from '../../../shared/scans/scans.ts';
import { scanSlot } from '../../../shared/watch/scan-slot.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Weekly scans of registered B sites, driven with a fake clock (the fan-out's asOf), run by the
// real worker, and the threshold alerts they send through the webhook module to a receiver on
// 127.0.0.1, verified with the official standardwebhooks package.

const WEEK = 7 * 86_400_000;

const GOOD = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kettle repair guide: descaling, seals and thermostats</title>
<meta name="description" content="How to descale an electric kettle, replace its lid seal and test the thermostat, with tools, times and costs.">
<meta name="author" content="Priya Natarajan"><meta property="article:published_time" content="2026-03-02">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"HowTo","name":"Descale an electric kettle","author":{"@type":"Person","name":"Priya Natarajan"},"datePublished":"2026-03-02","step":[{"@type":"HowToStep","text":"Fill halfway with equal parts water and white vinegar."},{"@type":"HowToStep","text":"Boil, then leave for 20 minutes."},{"@type":"HowToStep","text":"Empty, rinse twice and boil clean water once."}]}</script>
</head><body><header><nav><a href="/guides">Guides</a> <a href="/about">About</a></nav></header>
<main><article><h1>How do I descale an electric kettle?</h1>
<p>Fill the kettle halfway with equal parts water and white vinegar, boil it, and leave it for 20 minutes. Empty it, rinse twice, then boil clean water once to remove the taste. In hard-water areas, descaling every 4 weeks keeps a 1.7 litre kettle boiling in about 3 minutes instead of 4.</p>
<h2>What does a new lid seal cost?</h2>
<p>A replacement silicone seal costs between 3 and 8 pounds for most models. Measure the old seal's diameter in millimetres before ordering; 62 mm and 68 mm are the most common sizes.</p>
<h2>How can I test the thermostat?</h2>
<ul><li>Boil a full kettle and time it: it should switch off within 10 seconds of a rolling boil.</li>
<li>If it keeps boiling past 30 seconds, the bimetallic strip needs replacing.</li>
<li>Never open the base while it is plugged in.</li></ul>
<table><tr><th>Part</th><th>Price</th><th>Time</th></tr><tr><td>Lid seal</td><td>3-8 GBP</td><td>5 min</td></tr><tr><td>Thermostat</td><td>6-12 GBP</td><td>25 min</td></tr></table>
<p>Written by Priya Natarajan, appliance technician, published 2 March 2026.</p>
</article></main></body></html>`;

// A broken deploy: a placeholder that tells agents nothing.
const DEGRADED = `<!doctype html><html><head><meta name="robots" content="noindex,nofollow"></head><body><div id="app"></div><script>document.getElementById('app').textContent='Loading'</script></body></html>`;

type Mode = 'good' | 'degraded';
const modes: Record<string, Mode> = {
  '/kettles': 'good',
  '/lamps': 'good',
  '/free': 'good',
  '/partial': 'good',
};
// While set, the origin's /llms.txt answers only after 3 s: past a short scan deadline.
let slowLlmsTxt = false;

let pages: FixtureServer;
let receiver: http.Server;
let receiverPort: number;
let t: TestStack;
let allowHosts: string;
let optimisation: string;
let sites: { kettles: AgentSite; lamps: AgentSite; free: AgentSite };
let firstSlot: Date;
let webhook: { id: number; secret: string };
let line: number;
const deliveries: { headers: http.IncomingHttpHeaders; body: string }[] = [];

const page = (p: string) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(modes[p] === 'good' ? GOOD : DEGRADED);
};

async function overallOf(html: Mode): Promise<number> {
  const path = html === 'good' ? '/probe-good' : '/probe-bad';
  const out = await runScan(new URL(`${pages.origin}${path}`), 'quick', {
    policy: createUrlPolicy(allowHosts),
    signal: AbortSignal.timeout(60_000),
  });
  return (out.results['agent-readability'] as { overallScore: number }).overallScore;
}

before(async () => {
  pages = await startFixtureServer({
    routes: {
      '/kettles': page('/kettles'),
      '/lamps': page('/lamps'),
      '/free': page('/free'),
      '/partial': page('/partial'),
      '/llms.txt': (_q, r) => {
        if (slowLlmsTxt) setTimeout(() => r.writeHead(404).end(), 3000);
        else r.writeHead(404).end();
      },
      '/probe-good': (_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end(GOOD),
      '/probe-bad': (_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end(DEGRADED),
    },
  });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverPort = (receiver.address() as AddressInfo).port;
  allowHosts = `127.0.0.1:${pages.port},127.0.0.1:${receiverPort}`;
  t = await startTestStack({ SCAN_ALLOW_HOSTS: allowHosts, B_SITES_SCAN_MODE: 'quick' });
  optimisation = await t.newKey('B', 'optimisation');
  const intelligence = await t.newKey('B', 'intelligence');
  const account = async (k: string) => String((await call(t.url, '/api/v1/account', { key: k })).body.id);
  const opt = await account(optimisation);
  const intel = await account(intelligence);
  sites = {
    kettles: (
      await registerSite(t.handle.db, { accountId: opt, url: `${pages.origin}/kettles`, label: 'Kettles' })
    ).site,
    lamps: (await registerSite(t.handle.db, { accountId: opt, url: `${pages.origin}/lamps`, label: 'Lamps' }))
      .site,
    free: (await registerSite(t.handle.db, { accountId: intel, url: `${pages.origin}/free`, label: 'Free' }))
      .site,
  };
  const { rows } = await sql<{ slot: Date }>`select b_sites_next_slot(now()) as slot`.execute(t.handle.db);
  firstSlot = rows[0]!.slot;

  // The alert line sits between what the good and the degraded page really score.
  const good = await overallOf('good');
  const bad = await overallOf('degraded');
  assert.ok(good - bad >= 10, `the good page scores ${good}, the degraded one ${bad}`);
  line = Math.round((good + bad) / 2);
  const created = await call(t.url, '/api/v1/webhooks', {
    method: 'POST',
    key: optimisation,
    body: {
      url: `http://127.0.0.1:${receiverPort}/alerts`,
      site_ids: [Number(sites.kettles.id)],
      threshold: { overall: line },
    },
  });
  assert.equal(created.status, 201, created.text);
  webhook = created.body;
});
after(async () => {
  await t.close();
  await pages.close();
  await new Promise((r) => receiver.close(r));
});

const at = (weeks: number, minutes = 1) => new Date(firstSlot.getTime() + weeks * WEEK + minutes * 60_000);

async function drain(): Promise<void> {
  const until = Date.now() + 120_000;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker.jobs where task_identifier = 'b_site_scan'`.execute(
      t.handle.db,
    );
    if (rows[0]!.n === 0) return;
    if (Date.now() > until) throw new Error('b_site_scan jobs did not finish');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const scheduledRows = (site: AgentSite) =>
  t.handle.db
    .selectFrom('b_site_scans')
    .selectAll()
    .where('site_id', '=', site.id)
    .where('trigger', '=', 'scheduled')
    .orderBy('due_at')
    .execute();

const alerts = () =>
  deliveries.map((d) => {
    const json = new Webhook(webhook.secret).verify(d.body, {
      'webhook-id': d.headers['webhook-id'] as string,
      'webhook-timestamp': d.headers['webhook-timestamp'] as string,
      'webhook-signature': d.headers['webhook-signature'] as string,
      // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
    }) as Record<string, any>;
    return { headers: d.headers, json };
  });

/** What the b_site_scan job hands scanSlot, for running it directly (quick scans only). */
const scanDeps = (env: Record<string, string> = {}) => ({
  db: t.handle.db,
  config: loadConfig({ ...process.env, SCAN_ALLOW_HOSTS: allowHosts, LOG_LEVEL: 'silent', ...env }),
  log: createLogger('test', undefined, 'silent'),
  signal: new AbortController().signal,
  browser: () => {
    throw new Error('scheduled scans in this test are quick');
  },
});

describe('weekly B site scans', () => {
  it('b_sites_next_slot: the first Monday 03:00 UTC strictly after a time', async () => {
    const cases: [string, string][] = [
      ['2026-11-22T12:00:00Z', '2026-11-23T03:00:00.000Z'], // Sunday
      ['2026-11-23T02:59:59Z', '2026-11-23T03:00:00.000Z'], // Monday, just before
      ['2026-11-23T03:00:00Z', '2026-11-30T03:00:00.000Z'], // Monday, at the slot
      ['2026-11-24T08:00:00Z', '2026-11-30T03:00:00.000Z'], // Tuesday
      ['2026-12-31T23:00:00+05:00', '2027-01-04T03:00:00.000Z'], // offset input, across a year
    ];
    for (const [input, expected] of cases) {
      const { rows } = await sql<{
        slot: Date;
      }>`select b_sites_next_slot(${input}::timestamptz) as slot`.execute(t.handle.db);
      assert.equal(rows[0]!.slot.toISOString(), expected, input);
    }
    assert.equal(firstSlot.getUTCDay(), 1);
    assert.equal(firstSlot.getUTCHours(), 3);
  });

  it('before the Monday slot nothing is due; at it each due site is enqueued once, optimisation tier only', async () => {
    const early = await fanOutBSites(t.handle.db, { batch: 100, asOf: at(0, -1) });
    assert.deepEqual(
      { claimed: early.claimed, scheduled: early.scheduled, batches: early.batches },
      { claimed: 0, scheduled: 0, batches: 0 },
    );

    const r = await fanOutBSites(t.handle.db, { batch: 2, asOf: at(0) });
    assert.equal(r.claimed, 3, 'every due site moves on');
    assert.equal(r.scheduled, 2, 'the intelligence-tier site gets no scheduled scan');
    assert.equal(r.batches, 2);
    const again = await fanOutBSites(t.handle.db, { batch: 100, asOf: at(0, 30) });
    assert.equal(again.claimed, 0, 'a second tick in the same week finds nothing');
    await drain();

    for (const s of [sites.kettles, sites.lamps]) {
      const rows = await scheduledRows(s);
      assert.equal(rows.length, 1, s.label);
      assert.equal(rows[0]!.due_at!.toISOString(), firstSlot.toISOString());
      assert.equal(rows[0]!.status, 'ok');
    }
    assert.equal((await scheduledRows(sites.free)).length, 0);
    const next = await t.handle.db.selectFrom('b_site_schedules').selectAll().execute();
    for (const n of next) assert.equal(n.next_scan_due_at.toISOString(), at(1, 0).toISOString());
    assert.equal(deliveries.length, 0, 'a first scan crosses nothing');

    // The scheduled scan is the site's latest citability result.
    const latest = await call(t.url, `/api/v1/sites/${sites.kettles.id}/citability`, { key: optimisation });
    assert.equal(latest.status, 200);
    assert.equal(latest.body.scanId, (await scheduledRows(sites.kettles))[0]!.scan_id);
  });

  it('a threshold crossing sends exactly one signed score_drop; staying below sends nothing more', async () => {
    modes['/kettles'] = 'degraded';
    modes['/lamps'] = 'degraded'; // no endpoint covers this site: it never alerts
    const r = await fanOutBSites(t.handle.db, { batch: 100, asOf: at(1) });
    assert.equal(r.scheduled, 2);
    await drain();
    const got = alerts();
    assert.equal(got.length, 1, JSON.stringify(got.map((g) => g.json)));
    const a = got[0]!;
    assert.equal(a.headers['x-service-event'], 'monitoring.alert');
    assert.deepEqual(Object.keys(a.json).sort(), [
      'alert_type',
      'current_score',
      'delta',
      'dimension',
      'event',
      'message',
      'previous_score',
      'scanned_at',
      'site',
    ]);
    assert.equal(a.json.event, 'monitoring.alert');
    assert.equal(a.json.alert_type, 'score_drop');
    assert.equal(a.json.site, sites.kettles.url);
    assert.equal(a.json.dimension, null);
    assert.ok(a.json.previous_score >= line && a.json.current_score < line, JSON.stringify(a.json));
    assert.equal(a.json.delta, a.json.current_score - a.json.previous_score);
    assert.match(a.json.message, new RegExp(`below your threshold of ${line}`));

    // The delivery is listed on the endpoint.
    const listed = await call(t.url, `/api/v1/webhooks/${webhook.id}/deliveries`, { key: optimisation });
    assert.equal(listed.body.deliveries.length, 1);
    assert.equal(listed.body.deliveries[0].id, a.headers['webhook-id']);
    assert.equal(listed.body.deliveries[0].status, 'delivered');

    // The job run again for the same slot (as after a crash before its ack) sends nothing again.
    const rerun = await scanSlot(scanDeps(), registeredSiteWatch, {
      siteId: sites.kettles.id,
      dueAt: at(1, 0),
    });
    assert.equal(rerun, 'already_scanned');
    assert.equal(deliveries.length, 1);

    await fanOutBSites(t.handle.db, { batch: 100, asOf: at(2) });
    await drain();
    assert.equal(deliveries.length, 1, 'still below the line: no second alert');
  });

  it('missed Mondays catch up once, and a recovery sends recovered', async () => {
    modes['/kettles'] = 'good';
    // The scheduler was down for three Mondays: one scan per site, not three.
    const r = await fanOutBSites(t.handle.db, { batch: 100, asOf: at(5, 120) });
    assert.equal(r.claimed, 3);
    assert.equal(r.scheduled, 2);
    assert.equal((await fanOutBSites(t.handle.db, { batch: 100, asOf: at(5, 121) })).claimed, 0);
    await drain();
    const rows = await scheduledRows(sites.kettles);
    assert.deepEqual(
      rows.map((x) => x.due_at!.toISOString()),
      [at(0, 0), at(1, 0), at(2, 0), at(3, 0)].map((d) => d.toISOString()),
      'the catch-up scan serves the oldest missed slot',
    );
    const next = await t.handle.db
      .selectFrom('b_site_schedules')
      .select('next_scan_due_at')
      .where('site_id', '=', sites.kettles.id)
      .executeTakeFirstOrThrow();
    assert.equal(next.next_scan_due_at.toISOString(), at(6, 0).toISOString());

    const got = alerts();
    assert.equal(got.length, 2);
    const rec = got[1]!.json;
    assert.equal(rec.alert_type, 'recovered');
    assert.equal(rec.dimension, null);
    assert.ok(rec.current_score >= line && rec.previous_score < line, JSON.stringify(rec));
    assert.equal(rec.delta, rec.current_score - rec.previous_score);
  });

  it('a disabled endpoint receives nothing', async () => {
    await call(t.url, `/api/v1/webhooks/${webhook.id}`, {
      method: 'PATCH',
      key: optimisation,
      body: { enabled: false },
    });
    modes['/kettles'] = 'degraded';
    await fanOutBSites(t.handle.db, { batch: 100, asOf: at(6) });
    await drain();
    assert.equal(deliveries.length, 2);
  });

  it('a weekly scan that lacked an artifact is stored as partial, and the scan cache passes it over', async () => {
    const { site } = await registerSite(t.handle.db, {
      accountId: sites.kettles.account_id,
      url: `${pages.origin}/partial`,
      label: 'Partial',
    });
    // A one-second scan deadline cuts off the slow llms.txt; everything else answers at once.
    slowLlmsTxt = true;
    const outcome = await scanSlot(
      scanDeps({ B_SITES_SCAN_MODE: 'quick', SCAN_QUICK_DEADLINE_MS: '1000' }),
      registeredSiteWatch,
      {
        siteId: site.id,
        dueAt: at(7, 0),
      },
    ).finally(() => {
      slowLlmsTxt = false;
    });
    assert.equal(outcome, 'scanned');
    const [slot] = await scheduledRows(site);
    assert.equal(slot?.status, 'ok');
    const scan = await t.handle.db
      .selectFrom('scans')
      .select(['id', 'url', 'status', 'missing_artifacts'])
      .where('id', '=', slot!.scan_id!)
      .executeTakeFirstOrThrow();
    assert.equal(scan.status, 'done');
    assert.deepEqual(scan.missing_artifacts, ['LlmsTxt']);
    const view = await call(t.url, `/api/v1/scans/${scan.id}?view=b`);
    assert.equal(view.status, 200, view.text);
    assert.equal(view.body.partial, true);
    assert.deepEqual(view.body.missingArtifacts, ['LlmsTxt']);
    // A scan asked for the same page starts afresh instead of answering with the partial one.
    const asked = await requestScan(t.api.services, {
      url: new URL(scan.url),
      mode: 'quick',
      accountId: null,
    });
    assert.notEqual(asked.id, scan.id);
    assert.equal(asked.status, 'queued');
  });
});
