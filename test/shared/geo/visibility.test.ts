import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { wilson } from '../../../shared/geo/stats.ts';
import {
  type Behaviour,
  engineEnv,
  type FakeEngine,
  startFakeEngine,
  type Vendor,
} from '../../helpers/answer-engine.ts';
import { call } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { pollUntilDone, startTestStack, type TestStack } from '../../helpers/stack.ts';

// Visibility and share-of-voice runs end to end: API -> geo_runs row + job -> worker -> the
// official SDKs -> the loopback fake engine -> answers stored in one transaction -> the views.
// Sites are real registrable domains (example.co.uk, rival.com), written straight into the
// monitored_sites table because no test host can resolve them.

let fake: FakeEngine;
let t: TestStack;
let spec: SpecChecker;

/** prompt text -> vendor -> behaviour (a function of the n-th call of that prompt and vendor). */
const plans = new Map<string, Partial<Record<Vendor, (n: number) => Behaviour>>>();
const seen = new Map<string, number>();
const answer = (...cite: string[]): Behaviour => ({ kind: 'answer', text: 'Here is what I found.', cite });

before(async () => {
  fake = await startFakeEngine((vendor, prompt) => {
    const plan = plans.get(prompt)?.[vendor];
    const k = `${vendor}:${prompt}`;
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return plan ? plan(n) : answer();
  });
  t = await startTestStack({
    ...engineEnv(fake, 'openai', 'anthropic'),
    GEO_RUNS_PER_PROMPT: '3',
    GEO_RETRY_BASE_MS: '10',
    GEO_CALL_TIMEOUT_MS: '1500',
    GEO_MONTHLY_CALL_BUDGET: '30',
    GEO_WAIT_MS: '60000',
  });
  spec = await SpecChecker.load(t.url);
});
after(async () => {
  await t?.close();
  await fake?.close();
});

async function account(plan: 'growth' | 'agency' = 'agency') {
  const key = await t.newKey('A', 'agent', { plan });
  const id = String((await call(t.url, '/api/v1/account', { key })).body.id);
  return { key, id };
}

async function site(accountId: string, url: string, siteType: 'own' | 'competitor' = 'own', label?: string) {
  const row = await t.handle.db
    .insertInto('monitored_sites')
    .values({
      account_id: accountId,
      url,
      label: label ?? new URL(url).hostname,
      site_type: siteType,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

async function prompt(key: string, text: string, label: string) {
  const res = await call(t.url, '/api/v1/geo/prompts', {
    method: 'POST',
    key,
    body: { prompt: text, label },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id as number;
}

const answersOf = (runId: string) =>
  t.handle.db.selectFrom('geo_answers').selectAll().where('run_id', '=', runId).execute();

describe('visibility runs', () => {
  it('cites by registrable domain across providers: citationRate, Wilson interval, positions, raw answers', async () => {
    const { key, id } = await account();
    const siteId = await site(id, 'https://example.co.uk/', 'own', 'Example Widgets');
    const p1 = 'vis-1: who sells the best widgets in the uk?';
    const p2 = 'vis-1: cheapest widget repair?';
    plans.set(p1, {
      openai: () => answer('https://www.example.co.uk/a'),
      anthropic: () => answer('https://blog.example.co.uk/'),
    });
    plans.set(p2, {
      openai: () => answer('https://co.uk/', 'https://other.co.uk/x', 'https://example.co.uk.evil.com/'),
      anthropic: () => answer('https://rival.com/', 'https://example.co.uk/repair'),
    });
    const id1 = await prompt(key, p1, 'widgets');
    const id2 = await prompt(key, p2, 'repair');

    const res = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run`, { method: 'POST', key });
    assert.equal(res.status, 200, res.text);
    spec.check('POST', '/api/v1/geo/sites/{site_id}/visibility/run', res);
    const v = res.body;
    assert.equal(v.status, 'done');
    assert.equal(v.platform, 'all');
    assert.equal(v.runsPerPrompt, 3);
    assert.equal(v.promptCount, 2);
    // openai: p1 3/3, p2 0/3; anthropic: p1 3/3, p2 3/3 -> 9 of 12 answers cited; both prompts cited.
    assert.equal(v.totalPrompts, 2);
    assert.equal(v.totalPrompts, v.results.length);
    assert.equal(v.citedCount, 2);
    assert.deepEqual([v.answers, v.citedAnswers], [12, 9]);
    assert.equal(v.citationRate, 0.75);
    assert.deepEqual(v.interval, wilson(9, 12));
    assert.ok(Math.abs(v.interval.low - 0.4677) < 0.001 && Math.abs(v.interval.high - 0.9111) < 0.001);
    const byPlatform = Object.fromEntries(v.platforms.map((p: { platform: string }) => [p.platform, p]));
    assert.equal(byPlatform.openai.citationRate, 0.5);
    assert.equal(byPlatform.anthropic.citationRate, 1);
    const r1 = v.results.find((r: { promptId: number }) => r.promptId === id1);
    const r2 = v.results.find((r: { promptId: number }) => r.promptId === id2);
    assert.deepEqual([r1.cited, r1.citedRuns, r1.runs, r1.firstCitationPosition], [true, 6, 6, 1]);
    assert.deepEqual([r2.cited, r2.citedRuns, r2.runs, r2.firstCitationPosition], [true, 3, 6, 2]);
    assert.equal(r1.answers.length, 6);
    const a = r1.answers.find((x: { platform: string }) => x.platform === 'openai');
    assert.equal(a.citations[0].url, 'https://www.example.co.uk/a');
    assert.deepEqual(a.usage, { inputTokens: 21, outputTokens: 42, totalTokens: 63 });
    assert.equal(v.usage.inputTokens, 12 * 21);
    assert.equal(v.change, null);
    assert.equal((await answersOf(v.runId)).length, 12);

    // The same run from GET /visibility, /latest and /history.
    const got = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility`, { key });
    assert.equal(got.status, 200);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/visibility', got);
    assert.equal(got.body.runId, v.runId);
    assert.equal(got.body.citationRate, 0.75);
    const latest = await call(t.url, `/api/v1/geo/sites/${siteId}/latest`, { key });
    assert.equal(latest.body.visibility.runId, v.runId);
    const history = await call(t.url, `/api/v1/geo/sites/${siteId}/history`, { key });
    assert.equal(history.status, 200, history.text);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/history', history);
    assert.equal(history.body.items[0].type, 'visibility');
    assert.equal(history.body.items[0].run.results.length, 2);

    // A second run compares week over week: the same rate lies inside the interval, so noise.
    const again = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run`, { method: 'POST', key });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.change, {
      previousRunId: v.runId,
      previousCitationRate: 0.75,
      delta: 0,
      label: 'noise',
    });

    // The budget (30 calls a month) holds two runs of 12 calls; the third is skipped, and says why.
    const third = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run`, { method: 'POST', key });
    assert.equal(third.status, 200, third.text);
    assert.equal(third.body.status, 'skipped');
    assert.equal(third.body.error.code, 'budget_exhausted');
    assert.match(third.body.error.message, /24 of its 30/);
    assert.equal((await answersOf(third.body.runId)).length, 0);
  });

  it('answers 202 with a Location beyond the wait bound, and the poll gives the run', async () => {
    const { key, id } = await account('growth');
    const siteId = await site(id, 'https://www.slow-example.com/');
    const p = 'vis-2: slow question?';
    plans.set(p, { openai: () => answer('https://slow-example.com/'), anthropic: () => answer() });
    await prompt(key, p, 'slow');
    const res = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run?wait=0`, {
      method: 'POST',
      key,
    });
    assert.equal(res.status, 202, res.text);
    spec.check('POST', '/api/v1/geo/sites/{site_id}/visibility/run', res);
    const loc = res.headers.get('location')!;
    assert.equal(loc, `/api/v1/geo/runs/${res.body.runId}`);
    const done = await pollUntilDone(t.url, loc, key);
    assert.equal(done.status, 200);
    const body = await done.json();
    assert.equal(body.citationRate, 0.5); // openai 3/3, anthropic 0/3
    // Another account cannot poll it.
    const other = await account();
    const denied = await call(t.url, loc, { key: other.key });
    assert.equal(denied.status, 404);
  });

  it('a provider answering 429 then 200 is retried and the run completes', async () => {
    const { key, id } = await account();
    const siteId = await site(id, 'https://retry-example.org/');
    const p = 'vis-3: rate limited question?';
    plans.set(p, {
      openai: (n) =>
        n === 1 ? { kind: 'status', status: 429, retryAfter: '0' } : answer('https://retry-example.org/'),
      anthropic: () => answer('https://retry-example.org/x'),
    });
    await prompt(key, p, 'rl');
    const res = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run`, { method: 'POST', key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.citationRate, 1);
    assert.deepEqual([res.body.citedCount, res.body.citedAnswers, res.body.answers], [1, 6, 6]);
    const run = await t.handle.db
      .selectFrom('geo_runs')
      .selectAll()
      .where('id', '=', res.body.runId)
      .executeTakeFirstOrThrow();
    const openai = (run.summary as { providers: { provider: string; retries: number }[] }).providers.find(
      (p) => p.provider === 'openai',
    )!;
    assert.equal(openai.retries, 1);
  });

  it('a provider that never answers times out: its answers are dropped, the other provider’s kept', async () => {
    const { key, id } = await account();
    const siteId = await site(id, 'https://timeout-example.net/');
    const p = 'vis-4: hanging question?';
    plans.set(p, {
      openai: () => answer('https://timeout-example.net/'),
      anthropic: () => ({ kind: 'hang' }),
    });
    await prompt(key, p, 'hang');
    const res = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run`, { method: 'POST', key });
    assert.equal(res.status, 200, res.text);
    const anth = res.body.platforms.find((x: { platform: string }) => x.platform === 'anthropic');
    assert.equal(anth.status, 'failed');
    assert.equal(anth.error.code, 'provider_timeout');
    assert.deepEqual([anth.totalPrompts, anth.answers], [0, 0]);
    assert.deepEqual([res.body.totalPrompts, res.body.answers], [1, 3]);
    const rows = await answersOf(res.body.runId);
    assert.deepEqual([...new Set(rows.map((r) => r.provider))], ['openai']);
  });

  it('a malformed answer fails clearly and stores nothing half: 502 when every provider fails', async () => {
    const { key, id } = await account();
    const siteId = await site(id, 'https://malformed-example.io/');
    const p = 'vis-5: malformed question?';
    plans.set(p, {
      // openai answers well twice, then malformed: none of its answers may be stored.
      openai: (n) =>
        n === 3 ? { kind: 'raw', body: '{"output": "nope"}' } : answer('https://malformed-example.io/'),
      anthropic: () => ({ kind: 'raw', body: '{"content": 42}' }),
    });
    await prompt(key, p, 'bad');
    const res = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run`, { method: 'POST', key });
    assert.equal(res.status, 502, res.text);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
    assert.equal(res.body.code, 'provider_malformed');
    const run = await t.handle.db
      .selectFrom('geo_runs')
      .selectAll()
      .where('site_id', '=', String(siteId))
      .executeTakeFirstOrThrow();
    assert.equal(run.status, 'failed');
    assert.equal((await answersOf(run.id)).length, 0);
    // GET /visibility shows the failed run with its reason.
    const got = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility`, { key });
    assert.equal(got.status, 200);
    assert.equal(got.body.status, 'failed');
    assert.equal(got.body.error.code, 'provider_malformed');
  });

  it('joins a run in progress, but not one abandoned long past its deadline', async () => {
    const { key, id } = await account();
    const siteId = await site(id, 'https://abandoned-example.com/');
    const p = 'vis-6: abandoned question?';
    plans.set(p, { openai: () => answer('https://abandoned-example.com/'), anthropic: () => answer() });
    await prompt(key, p, 'abandoned');
    // A run whose job is gone for good (no job row), queued two days ago.
    await t.handle.db
      .insertInto('geo_runs')
      .values({
        id: 'gr_abandoned0001',
        account_id: id,
        site_id: String(siteId),
        kind: 'visibility',
        trigger: 'api',
        providers: ['openai'],
        runs_per_prompt: 1,
        sites: JSON.stringify([]),
      })
      .execute();
    await sql`update geo_runs set created_at = now() - interval '2 days' where id = 'gr_abandoned0001'`.execute(
      t.handle.db,
    );
    const res = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run`, { method: 'POST', key });
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.body.runId, 'gr_abandoned0001');
    assert.equal(res.body.citationRate, 0.5);
    const old = await t.handle.db
      .selectFrom('geo_runs')
      .select(['status', 'error'])
      .where('id', '=', 'gr_abandoned0001')
      .executeTakeFirstOrThrow();
    assert.equal(old.status, 'failed');
    assert.equal(old.error?.code, 'run_abandoned');
  });

  it('409 no_prompts without prompts; 404 not_run_yet before the first run', async () => {
    const { key, id } = await account();
    const siteId = await site(id, 'https://empty-example.com/');
    const res = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility/run`, { method: 'POST', key });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'no_prompts');
    const got = await call(t.url, `/api/v1/geo/sites/${siteId}/visibility`, { key });
    assert.equal(got.status, 404);
    assert.equal(got.body.code, 'not_run_yet');
  });
});

describe('share of voice', () => {
  it('ranks a competitor the engines cite more often above the own site, from one set of answers', async () => {
    const { key, id } = await account();
    const own = await site(id, 'https://example.co.uk/', 'own', 'Example');
    await site(id, 'https://rival.com/', 'competitor', 'Rival');
    await site(id, 'https://third.org/', 'competitor', 'Third');
    const p1 = 'sov-1: best widget shop?';
    const p2 = 'sov-1: widget maintenance tips?';
    plans.set(p1, {
      openai: () => answer('https://www.rival.com/', 'https://shop.example.co.uk/'),
      anthropic: () => answer('https://rival.com/best'),
    });
    plans.set(p2, {
      openai: () => answer('https://blog.rival.com/'),
      anthropic: () => answer('https://third.org/'),
    });
    await prompt(key, p1, 'shop');
    await prompt(key, p2, 'maintenance');
    const before = fake.requests.length;

    const res = await call(t.url, `/api/v1/geo/sites/${own}/geo-sov/run`, { method: 'POST', key });
    assert.equal(res.status, 200, res.text);
    spec.check('POST', '/api/v1/geo/sites/{site_id}/geo-sov/run', res);
    // Each prompt asked runsPerPrompt times per provider, not once per site.
    assert.equal(fake.requests.length - before, 2 * 3 * 2);
    const s = res.body;
    // own: p1 openai 3/3 -> 3 of 12; rival: p1 6/6 + p2 openai 3/3 -> 9 of 12; third: 3 of 12.
    assert.equal(s.ownSite.citationRate, 0.25);
    assert.deepEqual(
      s.competitors.map((c: { url: string; citationRate: number }) => [c.url, c.citationRate]),
      [
        ['https://rival.com/', 0.75],
        ['https://third.org/', 0.25],
      ],
    );
    assert.equal(s.yourRank, 2);
    assert.equal(s.gapToLeader, 0.5);
    const b1 = s.promptBreakdown.find((b: { label: string }) => b.label === 'shop');
    assert.deepEqual(
      b1.results.map((r: { url: string; isOwn: boolean; cited: boolean }) => [r.url, r.isOwn, r.cited]),
      [
        ['https://example.co.uk/', true, true],
        ['https://rival.com/', false, true],
        ['https://third.org/', false, false],
      ],
    );
    const got = await call(t.url, `/api/v1/geo/sites/${own}/geo-sov`, { key });
    assert.equal(got.status, 200);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/geo-sov', got);
    assert.equal(got.body.runId, s.runId);
  });

  it('takes an own site only (400 for a competitor)', async () => {
    const { key, id } = await account();
    const comp = await site(id, 'https://rival-only.com/', 'competitor');
    await prompt(key, 'sov-2: anything?', 'x');
    const res = await call(t.url, `/api/v1/geo/sites/${comp}/geo-sov/run`, { method: 'POST', key });
    assert.equal(res.status, 400);
  });
});
