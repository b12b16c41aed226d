import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../../shared/config.ts';
import { createLogger } from '../../../shared/logger.ts';
import { fanOutDueSites } from '../../../shared/monitoring/fanout.ts';
import { monitoredSiteWatch } from '../../../shared/monitoring/watch-kind.ts';
import { scanSlot } from '../../../shared/watch/scan-slot.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Alerts end to end: a fixture site whose pages we switch between a good and a degraded version
// (and off), scanned by the real worker on a controlled schedule, alerting a local receiver
// through the webhook module. Its competitor, degraded the same way, never alerts.

const DAY = 86_400_000;

const GOOD = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Crumb &amp; Co. Bakery in Leeds: sourdough, pastries and cakes</title>
<meta name="description" content="Family bakery in Leeds baking sourdough, pastries and celebration cakes every morning since 1998. Order online or visit us on Briggate.">
<link rel="canonical" href="/shop">
<meta property="og:title" content="Crumb & Co. Bakery"><meta property="og:type" content="website">
<meta property="og:image" content="https://cdn.example.org/crumb.jpg"><meta property="og:url" content="https://crumb.example.org/">
<meta name="twitter:card" content="summary_large_image">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Bakery","name":"Crumb & Co.","telephone":"+44 113 496 0000",
"address":{"@type":"PostalAddress","streetAddress":"12 Briggate","addressLocality":"Leeds","postalCode":"LS1 6HD"},
"openingHours":"Mo-Sa 07:00-17:00","geo":{"@type":"GeoCoordinates","latitude":53.797,"longitude":-1.542},
"sameAs":["https://www.instagram.com/crumbandco","https://www.facebook.com/crumbandco"]}</script>
</head><body><header><nav><a href="/menu">Menu</a> <a href="/contact">Contact</a></nav></header>
<main><h1>Fresh bread in Leeds, baked every morning</h1>
<p>Crumb &amp; Co. is a family bakery on Briggate. Since 1998 we have baked sourdough, rye and seeded loaves every morning from 4 am, with flour milled 30 miles away in Yorkshire. About 400 loaves leave our ovens each day, and most are sold by noon.</p>
<p><a class="button" href="/order">Order your bread now</a></p>
<h2>What do we bake?</h2>
<p>Our sourdough takes 36 hours from mixing to baking. We also make croissants with French butter, cinnamon buns, and celebration cakes to order with at least 48 hours notice. Everything is made on site, and we list every allergen on the shelf label and on the menu page.</p>
<h2>When are we open?</h2>
<p>Opening hours: Monday to Saturday 7:00 to 17:00. We are closed on Sundays and bank holidays. Bread is half price after 16:00, so nothing goes to waste.</p>
<h2>How do I order a cake?</h2>
<p>Call us on the number below or use the order form. Tell us the size, the flavour and the date, and we will confirm the price within one working day. Deliveries across Leeds cost 5 pounds; collection is free.</p>
<p>Rated 4.8 out of 5 by 1,200 customers. "The best sourdough in the north" wrote the Yorkshire Post in 2023.</p>
</main>
<footer><address>Crumb &amp; Co., 12 Briggate, Leeds LS1 6HD</address>
<p>Phone: <a href="tel:+441134960000">0113 496 0000</a> · <a href="https://www.google.com/maps/place/Briggate">Find us on the map</a></p>
<p><a href="https://www.instagram.com/crumbandco">Instagram</a> <a href="https://www.facebook.com/crumbandco">Facebook</a></p></footer>
</body></html>`;

// What a broken deploy looks like: a placeholder that hides the site from search and says nothing.
const DEGRADED = `<!doctype html><html><head><meta name="robots" content="noindex"></head><body><div>Coming soon</div></body></html>`;

type Mode = 'good' | 'degraded' | 'down';
const modes: Record<string, Mode> = { '/shop': 'good', '/rival': 'good' };

let site: FixtureServer;
let receiver: http.Server;
let receiverUrl: string;
let allowHosts: string;
let t: TestStack;
let key: string;
let own: { id: number; url: string };
let rival: { id: number; url: string };
let clock = Date.now();
const deliveries: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

const page = (path: string) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  const mode = modes[path];
  if (mode === 'down') return res.socket?.destroy();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(mode === 'good' ? GOOD : DEGRADED);
};

before(async () => {
  site = await startFixtureServer({ routes: { '/shop': page('/shop'), '/rival': page('/rival') } });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(req.url === '/fail' ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const port = (receiver.address() as AddressInfo).port;
  receiverUrl = `http://127.0.0.1:${port}`;
  allowHosts = `127.0.0.1:${site.port},127.0.0.1:${port}`;
  t = await startTestStack({ SCAN_ALLOW_HOSTS: allowHosts });
  key = await t.newKey('A', 'pro', { plan: 'agency' });
  const o = await call(t.url, '/api/v1/monitor/sites', {
    method: 'POST',
    key,
    body: {
      url: `${site.origin}/shop`,
      label: 'Crumb & Co.',
      webhook_url: `${receiverUrl}/hooks`,
      alert_threshold: 10,
    },
  });
  assert.equal(o.status, 201, o.text);
  own = o.body;
  const r = await call(t.url, '/api/v1/monitor/competitors', {
    method: 'POST',
    key,
    body: { url: `${site.origin}/rival`, label: 'Rival bakery' },
  });
  assert.equal(r.status, 201, r.text);
  rival = r.body;
});
after(async () => {
  await t.close();
  await site.close();
  await new Promise((r) => receiver.close(r));
});

/** One scheduled round: the clock moves a day and a half, both sites are claimed and scanned. */
async function round(): Promise<void> {
  clock += 1.5 * DAY;
  const { scheduled } = await fanOutDueSites(t.handle.db, { batch: 100, asOf: new Date(clock) });
  assert.equal(scheduled, 2);
  const until = Date.now() + 60_000;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker.jobs where task_identifier = 'monitor_scan'`.execute(
      t.handle.db,
    );
    if (rows[0]!.n === 0) return;
    if (Date.now() > until) throw new Error('monitor scans did not finish');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function latest(siteId: number) {
  return t.handle.db
    .selectFrom('monitor_scans')
    .selectAll()
    .where('site_id', '=', String(siteId))
    .orderBy('scanned_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
}

/** The monitor_scan job of the own site run again for a slot, as after a crash before its ack. */
function rerun(dueAt: Date) {
  const config = loadConfig({ ...process.env, SCAN_ALLOW_HOSTS: allowHosts, LOG_LEVEL: 'silent' });
  const log = createLogger('test', undefined, 'silent');
  return scanSlot(
    {
      db: t.handle.db,
      config,
      log,
      signal: new AbortController().signal,
      browser: () => {
        throw new Error('monitor scans in this test are quick');
      },
    },
    monitoredSiteWatch,
    { siteId: String(own.id), dueAt },
  );
}

const alertsOf = (siteId: number) =>
  t.handle.db
    .selectFrom('monitor_alerts')
    .selectAll()
    .where('site_id', '=', String(siteId))
    .orderBy('id')
    .execute();

const received = () => deliveries.map((d) => ({ ...d, json: JSON.parse(d.body) }));
const ofType = (type: string) => received().filter((d) => d.json.alert_type === type);

describe('monitoring alerts', () => {
  it('a first scan of a healthy site raises nothing', async () => {
    await round();
    const first = await latest(own.id);
    assert.equal(first.status, 'ok');
    assert.ok(first.overall_score >= 60, `good page scores ${first.overall_score}`);
    assert.equal((await alertsOf(own.id)).length, 0);
    assert.equal(deliveries.length, 0);
  });

  it('a score drop past the threshold sends exactly one score_drop with the interface.md payload; the competitor sends none', async () => {
    const before = await latest(own.id);
    modes['/shop'] = 'degraded';
    modes['/rival'] = 'degraded';
    await round();
    const after = await latest(own.id);
    assert.ok(
      before.overall_score - after.overall_score > 10,
      `${before.overall_score} -> ${after.overall_score}`,
    );

    const drops = ofType('score_drop');
    assert.equal(drops.length, 1);
    const d = drops[0]!;
    assert.equal(d.path, '/hooks');
    assert.deepEqual(Object.keys(d.json).sort(), [
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
    assert.equal(d.json.event, 'monitoring.alert');
    assert.equal(d.json.site, own.url);
    assert.equal(d.json.dimension, null);
    assert.equal(d.json.previous_score, before.overall_score);
    assert.equal(d.json.current_score, after.overall_score);
    assert.equal(d.json.delta, after.overall_score - before.overall_score);
    assert.ok(d.json.delta < -10);
    assert.equal(d.json.scanned_at, after.scanned_at.toISOString());
    assert.match(d.json.message, /Crumb & Co\..*fell from \d+ to \d+/);
    // The request: JSON, the event header, Standard Webhooks signature with the account's secret.
    assert.match(String(d.headers['content-type']), /^application\/json/);
    assert.equal(d.headers['x-service-event'], 'monitoring.alert');
    const { webhook_secret } = await t.handle.db
      .selectFrom('accounts')
      .innerJoin('monitored_sites', 'monitored_sites.account_id', 'accounts.id')
      .select('webhook_secret')
      .where('monitored_sites.id', '=', String(own.id))
      .executeTakeFirstOrThrow();
    assert.doesNotThrow(() =>
      new Webhook(webhook_secret!).verify(d.body, d.headers as Record<string, string>),
    );

    // Dimensions that fell by more than the threshold say which.
    const dims = ofType('dimension_drop');
    assert.ok(dims.length >= 1);
    for (const x of dims) {
      assert.ok(['seo', 'speed', 'copy', 'social', 'local', 'ai'].includes(x.json.dimension));
      assert.ok(x.json.delta < -10);
    }
    // The competitor: degraded the same way, scanned, silent.
    const rivalScan = await latest(rival.id);
    assert.ok(rivalScan.overall_score < 50);
    assert.equal((await alertsOf(rival.id)).length, 0);
    assert.ok(received().every((x) => x.json.site === own.url));
    const stored = await alertsOf(own.id);
    assert.ok(stored.every((a) => a.delivery_status === 'delivered'));
  });

  it('never alerts twice for the same scan: a re-run of the job and repeated fan-outs send nothing more', async () => {
    const count = deliveries.length;
    assert.equal(await rerun((await latest(own.id)).due_at), 'already_scanned');
    assert.equal((await fanOutDueSites(t.handle.db, { batch: 100, asOf: new Date(clock) })).scheduled, 0);
    assert.equal(deliveries.length, count);
    assert.equal(
      (
        await t.handle.db
          .selectFrom('monitor_scans')
          .select('id')
          .where('site_id', '=', String(own.id))
          .execute()
      ).length,
      2,
    );
  });

  it('sends recovered when the site climbs back within the threshold', async () => {
    const low = await latest(own.id);
    modes['/shop'] = 'good';
    modes['/rival'] = 'good';
    await round();
    const back = await latest(own.id);
    const rec = ofType('recovered');
    assert.equal(rec.length, 1);
    assert.equal(rec[0]!.json.previous_score, low.overall_score);
    assert.equal(rec[0]!.json.current_score, back.overall_score);
    assert.equal(rec[0]!.json.delta, back.overall_score - low.overall_score);
    assert.equal(rec[0]!.json.dimension, null);
    assert.equal(ofType('score_drop').length, 1, 'no new drop');
    assert.equal((await alertsOf(rival.id)).length, 0);
  });

  it('sends site_down once while the page cannot be fetched, then recovered', async () => {
    const up = await latest(own.id);
    modes['/shop'] = 'down';
    await round();
    const down = ofType('site_down');
    assert.equal(down.length, 1);
    assert.equal(down[0]!.json.previous_score, up.overall_score);
    assert.equal(down[0]!.json.current_score, 0);
    assert.match(down[0]!.json.message, /could not be fetched/);
    const scan = await latest(own.id);
    assert.equal(scan.status, 'down');
    const api = await call(t.url, `/api/v1/monitor/sites/${own.id}/latest`, { key });
    assert.equal(api.body.status, 'down');
    assert.match(api.body.issues[0], /could not be fetched/);

    await round(); // still down: nothing new
    assert.equal(ofType('site_down').length, 1);
    modes['/shop'] = 'good';
    await round();
    assert.equal(ofType('recovered').length, 2);
    assert.match(ofType('recovered')[1]!.json.message, /reachable again/);
  });

  it('records a failed delivery once and does not retry it; a site without webhook keeps its alerts for the status page', async () => {
    const patched = await call(t.url, `/api/v1/monitor/sites/${own.id}`, {
      method: 'PATCH',
      key,
      body: { webhook_url: `${receiverUrl}/fail` },
    });
    assert.equal(patched.status, 200);
    modes['/shop'] = 'degraded';
    await round();
    const failed = (await alertsOf(own.id)).filter((a) => a.alert_type === 'score_drop').at(-1)!;
    assert.equal(failed.delivery_status, 'failed');
    assert.match(failed.delivery_detail ?? '', /500/);
    const attempts = deliveries.filter(
      (d) => d.path === '/fail' && JSON.parse(d.body).alert_type === 'score_drop',
    );
    assert.equal(attempts.length, 1);
    const failures = deliveries.filter((d) => d.path === '/fail').length;
    await rerun((await latest(own.id)).due_at);
    assert.equal(deliveries.filter((d) => d.path === '/fail').length, failures, 'no second attempt');

    await call(t.url, `/api/v1/monitor/sites/${own.id}`, {
      method: 'PATCH',
      key,
      body: { webhook_url: null },
    });
    const sent = deliveries.length;
    modes['/shop'] = 'good';
    await round();
    assert.equal(deliveries.length, sent, 'nothing sent without a webhook');
    const last = (await alertsOf(own.id)).at(-1)!;
    assert.equal(last.alert_type, 'recovered');
    assert.equal(last.delivery_status, 'no_webhook');
  });

  it('two runs racing for one slot record it once and leave no orphan scan row behind', async () => {
    const scansOf = async () =>
      (await t.handle.db.selectFrom('scans').select('id').where('url', '=', own.url).execute()).length;
    const before = await scansOf();
    const slot = new Date(clock + 60_000); // a slot no scheduled round uses
    const outcomes = await Promise.all([rerun(slot), rerun(slot)]);
    assert.deepEqual(outcomes.sort(), ['already_scanned', 'scanned']);
    const recorded = await t.handle.db
      .selectFrom('monitor_scans')
      .select(['id', 'scan_id'])
      .where('site_id', '=', String(own.id))
      .where('due_at', '=', slot)
      .execute();
    assert.equal(recorded.length, 1, 'one monitor scan for the slot');
    assert.equal(await scansOf(), before + 1, 'one scan row: the loser rolled back');
    assert.ok(recorded[0]!.scan_id, 'the recorded slot points at its scan');
  });

  it('stores the scan mode with each scan and compares only scans of the same mode', async () => {
    modes['/shop'] = 'good';
    await round();
    const good = await latest(own.id);
    assert.equal(good.scan_mode, 'quick');
    // The history as if scanned in full mode (a rendered page and Lighthouse): not comparable.
    await sql`update monitor_scans set scan_mode = 'full' where site_id = ${String(own.id)}`.execute(
      t.handle.db,
    );
    const drops = async () => (await alertsOf(own.id)).filter((a) => a.alert_type === 'score_drop').length;
    const before = await drops();
    modes['/shop'] = 'degraded';
    await round();
    const low = await latest(own.id);
    assert.equal(low.scan_mode, 'quick');
    assert.ok(good.overall_score - low.overall_score > 10, `${good.overall_score} -> ${low.overall_score}`);
    assert.equal(await drops(), before, 'a quick scan is not compared with a full one');
    // The next quick scans compare with the last quick one: a real drop still alerts.
    modes['/shop'] = 'good';
    await round();
    modes['/shop'] = 'degraded';
    await round();
    assert.equal(await drops(), before + 1);
    modes['/shop'] = 'good';
    await round();
  });

  it('after a model version change, a lower score is no drop: scores of another version are not compared', async () => {
    // The site's history as if an older monitoring model had scored it.
    await sql`update monitor_scans set model_version = '0.0.1' where site_id = ${String(own.id)}`.execute(
      t.handle.db,
    );
    const drops = async () => (await alertsOf(own.id)).filter((a) => a.alert_type.endsWith('_drop')).length;
    const before = await drops();
    const good = await latest(own.id);
    modes['/shop'] = 'degraded';
    await round();
    const low = await latest(own.id);
    assert.ok(good.overall_score - low.overall_score > 10, `${good.overall_score} -> ${low.overall_score}`);
    assert.equal(await drops(), before);
  });
});
