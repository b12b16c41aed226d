import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { fanOutGeoRuns } from '../../../shared/geo/schedule.ts';
import { engineEnv, type FakeEngine, startFakeEngine } from '../../helpers/answer-engine.ts';
import { call } from '../../helpers/api.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// The Sunday fan-out catches up: geo_fanout runs every few minutes and files its runs under the
// most recent Sunday 04:00 UTC at or before its clock, so a tick missed at 04:00 (workers down, a
// database error) is made good by the next one, once. Time is driven with asOf; the sites are
// created now, so the Sundays used are in the future.

let fake: FakeEngine;
let t: TestStack;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The first Sunday 04:00 UTC strictly after `after`. */
function nextSunday0400(after: Date): Date {
  const d = new Date(Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), 4));
  d.setUTCDate(d.getUTCDate() + ((7 - d.getUTCDay()) % 7));
  return d > after ? d : new Date(d.getTime() + 7 * DAY);
}
const ymd = (d: Date) => d.toISOString().slice(0, 10);
const opts = (asOf: Date) => ({ batch: 100, providers: ['openai'], runsPerPrompt: 1, asOf });

before(async () => {
  fake = await startFakeEngine(() => ({ kind: 'answer', text: 'Nothing to cite.', cite: [] }));
  t = await startTestStack({ ...engineEnv(fake, 'openai'), GEO_RUNS_PER_PROMPT: '1' });
});
after(async () => {
  await t?.close();
  await fake?.close();
});

/** A Growth account with one own site and one prompt, both created now. */
async function ownSite(host: string) {
  const key = await t.newKey('A', 'agent', { plan: 'growth' });
  const accountId = String((await call(t.url, '/api/v1/account', { key })).body.id);
  const site = await t.handle.db
    .insertInto('monitored_sites')
    .values({
      account_id: accountId,
      url: `https://${host}/`,
      label: host,
      site_type: 'own',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.handle.db
    .insertInto('geo_prompts')
    .values({ account_id: accountId, prompt: `who is the best at ${host}?`, label: host })
    .execute();
  return { accountId, siteId: String(site.id) };
}

const scheduledRuns = (siteId: string) =>
  t.handle.db
    .selectFrom('geo_runs')
    .select(['id', 'trigger', sql<string>`schedule_slot::text`.as('schedule_slot')])
    .where('site_id', '=', siteId)
    .where('schedule_slot', 'is not', null)
    .execute();

async function settled(runId: string) {
  for (let i = 0; ; i++) {
    const { status } = await t.handle.db
      .selectFrom('geo_runs')
      .select('status')
      .where('id', '=', runId)
      .executeTakeFirstOrThrow();
    if ((status !== 'queued' && status !== 'running') || i >= 200) return status;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the Sunday GEO fan-out', () => {
  it('a tick missed at 04:00 is made good later that Sunday, under that Sunday, once', async () => {
    const a = await ownSite('sunday-late.example');
    const sunday = nextSunday0400(new Date());
    // Before that Sunday's 04:00 the slot is the previous Sunday, when the site did not exist yet.
    const early = await fanOutGeoRuns(t.handle.db, opts(new Date(sunday.getTime() - 60_000)));
    assert.equal((await scheduledRuns(a.siteId)).length, 0, 'nothing before the first Sunday 04:00');
    assert.equal(early.slot, ymd(new Date(sunday.getTime() - 7 * DAY)));

    // 04:00 came and went with no fan-out; the 09:00 one schedules the Sunday's runs.
    const late = await fanOutGeoRuns(t.handle.db, opts(new Date(sunday.getTime() + 5 * HOUR)));
    const runs = await scheduledRuns(a.siteId);
    assert.deepEqual(
      runs.map((r) => r.schedule_slot),
      [ymd(sunday)],
    );
    assert.equal(late.slot, ymd(sunday));
    assert.ok(late.scheduled >= 1);
    assert.equal(runs[0]!.trigger, 'schedule');
    // Its job went in with it: the worker runs it against the fake engine.
    assert.equal(await settled(runs[0]!.id), 'done');

    // Later ticks of the same week add nothing, and stop at the slot's marker without a batch.
    for (const h of [5.1, 22, 6 * 24 + 23]) {
      const again = await fanOutGeoRuns(t.handle.db, opts(new Date(sunday.getTime() + h * HOUR)));
      assert.equal(again.slot, ymd(sunday));
      assert.equal(again.scheduled, 0);
      assert.equal(again.batches, 0, 'a finished Sunday costs one lookup');
    }
    assert.equal((await scheduledRuns(a.siteId)).length, 1);
  });

  it('the first tick on Monday 02:00 after a missed Sunday files the runs under that Sunday', async () => {
    const b = await ownSite('monday-catch-up.example');
    const sunday = new Date(nextSunday0400(new Date()).getTime() + 7 * DAY);
    const monday = new Date(sunday.getTime() + 22 * HOUR);
    // A site added after that Sunday's 04:00 waits for the next Sunday, as it always has.
    const newer = await ownSite('added-sunday-noon.example');
    await sql`update monitored_sites set created_at = ${new Date(sunday.getTime() + 8 * HOUR)}
               where id = ${newer.siteId}`.execute(t.handle.db);
    // So does a site whose account only got its first prompt after 04:00.
    const noPrompt = await ownSite('prompt-sunday-noon.example');
    await sql`update geo_prompts set created_at = ${new Date(sunday.getTime() + 8 * HOUR)}
               where account_id = ${noPrompt.accountId}`.execute(t.handle.db);

    const first = await fanOutGeoRuns(t.handle.db, opts(monday));
    assert.deepEqual(
      (await scheduledRuns(b.siteId)).map((r) => r.schedule_slot),
      [ymd(sunday)],
    );
    assert.equal(first.slot, ymd(sunday));
    assert.equal((await scheduledRuns(newer.siteId)).length, 0);
    assert.equal((await scheduledRuns(noPrompt.siteId)).length, 0);
    const second = await fanOutGeoRuns(t.handle.db, opts(new Date(monday.getTime() + 5 * 60_000)));
    assert.equal(second.scheduled, 0, 'a second fan-out creates nothing more');
    assert.equal((await scheduledRuns(b.siteId)).length, 1);

    // The next Sunday they are all due.
    const next = await fanOutGeoRuns(t.handle.db, opts(new Date(sunday.getTime() + 7 * DAY)));
    assert.equal(next.slot, ymd(new Date(sunday.getTime() + 7 * DAY)));
    for (const s of [b, newer, noPrompt])
      assert.equal((await scheduledRuns(s.siteId)).length, s === b ? 2 : 1);
  });

  it('a fan-out cut short (worker shutdown) leaves the Sunday open for the next tick', async () => {
    await ownSite('interrupted-1.example');
    await ownSite('interrupted-2.example');
    const sunday = new Date(nextSunday0400(new Date()).getTime() + 21 * DAY);
    // Aborted after its first batch of one site.
    let reads = 0;
    const signal = {
      get aborted() {
        return ++reads > 1;
      },
    } as AbortSignal;
    const asOf = new Date(sunday.getTime() + HOUR);
    const cut = await fanOutGeoRuns(t.handle.db, { ...opts(asOf), batch: 1, signal });
    assert.equal(cut.scheduled, 1);
    const due = await t.handle.db
      .selectFrom('monitored_sites')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const next = await fanOutGeoRuns(t.handle.db, opts(new Date(asOf.getTime() + 5 * 60_000)));
    assert.equal(next.scheduled, Number(due.n) - 1, 'the rest of the Sunday, on the next tick');
    const filed = await t.handle.db
      .selectFrom('geo_runs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('schedule_slot', '=', ymd(sunday))
      .executeTakeFirstOrThrow();
    assert.equal(Number(filed.n), Number(due.n));
  });
});
