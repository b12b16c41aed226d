import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { setSubscription } from '../../../shared/accounts/accounts.ts';
import { fanOutDueSites } from '../../../shared/monitoring/fanout.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// The schedule driven with a controlled clock: the fan-out takes `asOf` in place of the
// database's now() (production passes nothing). Scans themselves run for real in the worker.

const DAY = 86_400_000;
const HOUR = 3_600_000;

let t: TestStack;
let site: FixtureServer;

before(async () => {
  const body =
    '<!doctype html><html lang="en"><head><title>Fixture shop</title></head><body><h1>Shop</h1><p>Open daily.</p></body></html>';
  site = await startFixtureServer({
    routes: {
      '/agency': (_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end(body),
      '/growth': (_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end(body),
    },
  });
  t = await startTestStack({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
});
after(async () => {
  await t.close();
  await site.close();
});

const fanout = async (asOf?: Date, batch = 1000, signal?: AbortSignal) => {
  const { scheduled, batches } = await fanOutDueSites(t.handle.db, { batch, asOf, signal });
  return { scheduled, batches };
};

async function scans(siteId: number): Promise<{ due_at: Date; scanned_at: Date }[]> {
  return t.handle.db
    .selectFrom('monitor_scans')
    .select(['due_at', 'scanned_at'])
    .where('site_id', '=', String(siteId))
    .orderBy('due_at')
    .execute();
}

/** Waits until the worker has recorded `n` scans of the site. */
async function waitForScans(siteId: number, n: number) {
  const until = Date.now() + 60_000;
  for (;;) {
    const list = await scans(siteId);
    if (list.length >= n) return list;
    if (Date.now() > until) throw new Error(`site ${siteId}: ${list.length} scans, expected ${n}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function nextDue(siteId: number): Promise<number> {
  const row = await t.handle.db
    .selectFrom('monitored_sites')
    .select('next_scan_due_at')
    .where('id', '=', String(siteId))
    .executeTakeFirstOrThrow();
  return row.next_scan_due_at.getTime();
}

const diffs = (list: { due_at: Date }[]) =>
  list.slice(1).map((s, i) => s.due_at.getTime() - list[i]!.due_at.getTime());

describe('monitoring schedule', () => {
  it('scans a new site at the next tick, then agency daily and growth weekly; a missed stretch runs each site once', async () => {
    const agencyKey = await t.newKey('A', 'free', { plan: 'agency' });
    const growthKey = await t.newKey('A', 'free', { plan: 'growth' });
    const a = (
      await call(t.url, '/api/v1/monitor/sites', {
        method: 'POST',
        key: agencyKey,
        body: { url: `${site.origin}/agency` },
      })
    ).body;
    const g = (
      await call(t.url, '/api/v1/monitor/sites', {
        method: 'POST',
        key: growthKey,
        body: { url: `${site.origin}/growth` },
      })
    ).body;
    assert.ok(a.id && g.id);

    // Added now: the very next fan-out (the production path, database clock) takes both.
    assert.deepEqual(await fanout(), { scheduled: 2, batches: 1 });
    assert.deepEqual(await fanout(), { scheduled: 0, batches: 0 }, 'claimed sites are not due again');
    const [firstA] = await waitForScans(a.id, 1);
    await waitForScans(g.id, 1);
    const t0 = firstA!.due_at.getTime();
    const aNext = await nextDue(a.id);
    const gNext = await nextDue(g.id);
    assert.ok(
      aNext - t0 >= DAY / 2 && aNext - t0 < 1.5 * DAY,
      `agency next scan ${(aNext - t0) / HOUR} h later`,
    );
    assert.ok(
      gNext - t0 >= 3.5 * DAY && gNext - t0 < 10.5 * DAY,
      `growth next scan ${(gNext - t0) / DAY} d later`,
    );

    // Three simulated weeks of cron ticks, six hours apart.
    let clock = Date.now();
    const end = clock + 21 * DAY;
    while (clock < end) {
      clock += 6 * HOUR;
      await fanout(new Date(clock));
      // Let the worker finish before the clock moves on, as it would in real time.
      await waitUntilIdle();
    }
    const aScans = await scans(a.id);
    const gScans = await scans(g.id);
    // Agency: one slot a day, each exactly a day after the one before.
    assert.ok(aScans.length >= 21 && aScans.length <= 23, `agency scans: ${aScans.length}`);
    assert.deepEqual(new Set(diffs(aScans).slice(1)), new Set([DAY]));
    // Growth: one slot a week.
    assert.ok(gScans.length >= 3 && gScans.length <= 4, `growth scans: ${gScans.length}`);
    assert.deepEqual(new Set(diffs(gScans).slice(1)), new Set([7 * DAY]));

    // Downtime: no ticks for eight days, so the agency site misses eight slots and the growth
    // site at least one. At restart, graphile-worker's crontab fill (or impatient operators)
    // may run the fan-out several times at once: each site must run once.
    clock += 8 * DAY;
    const restart = new Date(clock);
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await fanout(restart));
    assert.deepEqual(
      runs.map((r) => r.scheduled),
      [2, 0, 0, 0, 0],
    );
    await waitForScans(a.id, aScans.length + 1);
    await waitForScans(g.id, gScans.length + 1);
    await waitUntilIdle();
    assert.equal((await scans(a.id)).length, aScans.length + 1, 'agency site caught up once');
    assert.equal((await scans(g.id)).length, gScans.length + 1, 'growth site caught up once');
    // And both are back on their own phase, due in the future.
    for (const [id, period, last] of [
      [a.id, DAY, aScans.at(-1)!],
      [g.id, 7 * DAY, gScans.at(-1)!],
    ] as const) {
      const due = await nextDue(id);
      assert.ok(due > clock, 'next slot is after the restart');
      assert.equal((due - last.due_at.getTime()) % period, 0, 'same phase as before the downtime');
    }
  });

  it('leaves sites of an ended subscription and paused sites alone', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const s = (
      await call(t.url, '/api/v1/monitor/sites', {
        method: 'POST',
        key,
        body: { url: `${site.origin}/growth?ended` },
      })
    ).body;
    await t.handle.db
      .updateTable('subscriptions')
      .set({ status: 'canceled' })
      .where('account_id', '=', String((await call(t.url, '/api/v1/account', { key })).body.id))
      .execute();
    const before = await nextDue(s.id);
    await fanout();
    assert.equal(await nextDue(s.id), before, 'not claimed');
    await waitUntilIdle();
    assert.equal((await scans(s.id)).length, 0);

    const live = await t.newKey('A', 'free', { plan: 'growth' });
    const p = (
      await call(t.url, '/api/v1/monitor/sites', {
        method: 'POST',
        key: live,
        body: { url: `${site.origin}/growth?paused` },
      })
    ).body;
    const paused = await call(t.url, `/api/v1/monitor/sites/${p.id}`, {
      method: 'PATCH',
      key: live,
      body: { status: 'paused' },
    });
    assert.equal(paused.body.status, 'paused');
    await fanout();
    assert.equal(await nextDue(p.id), p.nextScanDueAt, 'a paused site is not claimed');
    await call(t.url, `/api/v1/monitor/sites/${p.id}`, {
      method: 'PATCH',
      key: live,
      body: { status: 'active' },
    });
    assert.equal((await fanout()).scheduled, 1, 'resumed: due again at once');
    await waitForScans(p.id, 1);
    await waitUntilIdle();
  });

  it('fans out in batches, and a run stopped between batches leaves the rest due', async () => {
    const key = await t.newKey('A', 'free', { plan: 'agency' });
    const ids: number[] = [];
    for (const q of ['b1', 'b2', 'b3']) {
      ids.push(
        (
          await call(t.url, '/api/v1/monitor/sites', {
            method: 'POST',
            key,
            body: { url: `${site.origin}/agency?${q}` },
          })
        ).body.id,
      );
    }
    assert.deepEqual(await fanout(undefined, 2, AbortSignal.abort()), { scheduled: 0, batches: 0 });
    assert.deepEqual(await fanout(undefined, 2), { scheduled: 3, batches: 2 });
    for (const id of ids) await waitForScans(id, 1);
    await waitUntilIdle();
  });

  it('an upgrade to daily scans brings each site to its next daily slot at once; a downgrade moves none', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const accountId = String((await call(t.url, '/api/v1/account', { key })).body.id);
    const s = (
      await call(t.url, '/api/v1/monitor/sites', {
        method: 'POST',
        key,
        body: { url: `${site.origin}/growth?upgrade` },
      })
    ).body;
    // Its first scan puts it on its weekly slot, days ahead.
    await fanout();
    await waitForScans(s.id, 1);
    await waitUntilIdle();
    const weekly = await nextDue(s.id);
    assert.ok(weekly - Date.now() >= 3 * DAY, `weekly slot ${(weekly - Date.now()) / DAY} d ahead`);

    await setSubscription(t.handle.db, accountId, 'agency');
    const daily = await nextDue(s.id);
    const now = Date.now();
    assert.ok(
      daily >= now - 60_000 && daily - now <= DAY,
      `after the upgrade the next scan is ${(daily - now) / HOUR} h ahead`,
    );
    assert.equal((weekly - daily) % DAY, 0, 'same time of day: the site keeps its phase');

    // A day on, the fan-out takes it, and from then on it is daily.
    await fanout(new Date(now + DAY));
    const [, second] = await waitForScans(s.id, 2);
    assert.equal(second!.due_at.getTime(), daily);
    await waitUntilIdle();
    const after = await nextDue(s.id);
    assert.ok(after > now + DAY && after - daily <= 2 * DAY && (after - daily) % DAY === 0);

    // Back to Growth: the daily slot is not pushed out (or pulled in); the fan-out spaces the next.
    await setSubscription(t.handle.db, accountId, 'growth');
    assert.equal(await nextDue(s.id), after);
    await setSubscription(t.handle.db, accountId, 'growth');
    assert.equal(await nextDue(s.id), after, 'no plan change, no move');
  });

  it('a fan-out racing a plan change never reschedules on the period the change replaces', async () => {
    const key = await t.newKey('A', 'free', { plan: 'agency' });
    const accountId = String((await call(t.url, '/api/v1/account', { key })).body.id);
    const s = (
      await call(t.url, '/api/v1/monitor/sites', {
        method: 'POST',
        key,
        body: { url: `${site.origin}/agency?race` },
      })
    ).body;
    const due = await nextDue(s.id);
    const asOf = new Date(Math.max(due, Date.now()) + HOUR);
    // A downgrade to weekly scans, written and not yet committed, while the fan-out runs.
    let commit!: () => void;
    const held = new Promise<void>((r) => (commit = r));
    let written!: () => void;
    const inFlight = new Promise<void>((r) => (written = r));
    const change = t.handle.db.transaction().execute(async (trx) => {
      await setSubscription(trx, accountId, 'growth');
      written();
      await held;
    });
    await inFlight;
    let duringChange: number;
    try {
      await fanout(asOf);
      duringChange = await nextDue(s.id);
    } finally {
      commit();
      await change;
    }
    assert.equal(duringChange, due, 'not claimed on the old (daily) period while the change is in flight');
    await fanout(asOf);
    const next = await nextDue(s.id);
    assert.ok(
      next - asOf.getTime() > 3 * DAY,
      `claimed on the weekly period: next ${(next - asOf.getTime()) / HOUR} h on`,
    );
    await waitForScans(s.id, 1);
    await waitUntilIdle();
  });

  it('spreads sites over the period: a thousand sites added at once get their own minutes of the day', async () => {
    const { rows } = await sql<{ minute: number; n: number }>`
      select (extract(epoch from monitor_next_due(id, 86400, now())) / 60)::bigint % 1440 as minute, count(*)::int as n
        from generate_series(1, 1000) id group by 1`.execute(t.handle.db);
    // Uniform over 1440 minutes would give ~720 distinct minutes, ~42 sites an hour.
    const busiest = Math.max(...rows.map((r) => r.n));
    assert.ok(rows.length > 600, `${rows.length} distinct minutes of 1440 for 1000 sites`);
    assert.ok(busiest <= 7, `${busiest} sites start in the busiest minute`);
    const hours = new Map<number, number>();
    for (const r of rows)
      hours.set(Math.floor(r.minute / 60), (hours.get(Math.floor(r.minute / 60)) ?? 0) + r.n);
    assert.equal(hours.size, 24, 'every hour of the day has sites');
    for (const [h, n] of hours) assert.ok(n >= 20 && n <= 65, `hour ${h}: ${n} sites`);
  });
});

/** No monitor job waiting or running. */
async function waitUntilIdle() {
  const until = Date.now() + 60_000;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker.jobs where task_identifier = 'monitor_scan'`.execute(
      t.handle.db,
    );
    if (rows[0]!.n === 0) return;
    if (Date.now() > until) throw new Error(`${rows[0]!.n} monitor jobs still queued`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
