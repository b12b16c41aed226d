import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../shared/config.ts';
import { executeRun, monthlyCallsUsed, refundUnmadeCalls } from '../../../shared/geo/visibility-runs.ts';
import { createLogger } from '../../../shared/logger.ts';
import { type Behaviour, engineEnv, type FakeEngine, startFakeEngine } from '../../helpers/answer-engine.ts';
import { call } from '../../helpers/api.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// The monthly call budget is charged for the calls a run makes: a run reserves
// prompts x runs per prompt x providers up front, and gives back what it did not ask when it
// finishes (a provider that failed at once, a run that failed altogether), exactly once.
// One call in flight per provider, so the calls a failing provider makes are deterministic.

let fake: FakeEngine;
let t: TestStack;
let env: Record<string, string>;
const failing = new Set<string>();
/** Prompts (by prefix) answered by a plan of the test's own instead. */
const plans = new Map<string, () => Behaviour>();
const answer: Behaviour = { kind: 'answer', text: 'Here is what I found.', cite: [] };

before(async () => {
  fake = await startFakeEngine((vendor, prompt) => {
    const plan = [...plans].find(([prefix]) => prompt.startsWith(prefix))?.[1];
    if (plan) return plan();
    return failing.has(`${vendor}:${prompt}`)
      ? { kind: 'status', status: 401, body: { error: 'bad key' } }
      : answer;
  });
  env = {
    ...engineEnv(fake, 'openai', 'anthropic'),
    GEO_RUNS_PER_PROMPT: '3',
    GEO_PROVIDER_CONCURRENCY: '1',
    GEO_RETRY_BASE_MS: '10',
    GEO_MONTHLY_CALL_BUDGET: '30',
    GEO_WAIT_MS: '60000',
  };
  t = await startTestStack(env);
});
after(async () => {
  await t?.close();
  await fake?.close();
});

/** An Agency account with one own site and two prompts (12 calls a run with two providers). */
async function setup(name: string) {
  const key = await t.newKey('A', 'agent', { plan: 'agency' });
  const accountId = String((await call(t.url, '/api/v1/account', { key })).body.id);
  const site = await t.handle.db
    .insertInto('monitored_sites')
    .values({
      account_id: accountId,
      url: `https://${name}.example/`,
      label: name,
      site_type: 'own',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const prompts = [`${name}: first question?`, `${name}: second question?`];
  for (const prompt of prompts) {
    const res = await call(t.url, '/api/v1/geo/prompts', {
      method: 'POST',
      key,
      body: { prompt, label: name },
    });
    assert.equal(res.status, 201, res.text);
  }
  return { key, accountId, siteId: Number(site.id), prompts };
}

const runRow = (id: string) =>
  t.handle.db.selectFrom('geo_runs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('the GEO call budget', () => {
  it('a provider that fails at once gives back its unmade calls: usage equals the calls made', async () => {
    const a = await setup('bad-key');
    for (const p of a.prompts) failing.add(`anthropic:${p}`);
    const before = fake.requests.length;
    const res = await call(t.url, `/api/v1/geo/sites/${a.siteId}/visibility/run`, {
      method: 'POST',
      key: a.key,
    });
    assert.equal(res.status, 200, res.text);
    const anth = res.body.platforms.find((p: { platform: string }) => p.platform === 'anthropic');
    assert.equal(anth.status, 'failed');
    assert.equal(anth.error.code, 'provider_auth');
    const made = fake.requests.length - before;
    // openai asked 2 prompts x 3; anthropic's first call failed (401, not retried), the rest never went out.
    assert.equal(made, 7);
    assert.equal(await monthlyCallsUsed(t.handle.db, a.accountId), made);
    const run = await runRow(res.body.runId);
    assert.equal(run.calls_reserved, 12);
    assert.equal(run.calls_refunded, 5);

    // Finishing again (a re-run after a crash) gives nothing back twice.
    assert.equal(await refundUnmadeCalls(t.handle.db, run.id), 0);
    assert.equal(await monthlyCallsUsed(t.handle.db, a.accountId), made);
  });

  it('a run in which every provider fails is charged only its calls, so retries do not exhaust the month', async () => {
    const b = await setup('all-fail');
    for (const p of b.prompts) {
      failing.add(`anthropic:${p}`);
      failing.add(`openai:${p}`);
    }
    // Budget 30, 12 reserved a run: without refunds the third attempt would be skipped.
    for (let i = 1; i <= 4; i++) {
      const res = await call(t.url, `/api/v1/geo/sites/${b.siteId}/visibility/run`, {
        method: 'POST',
        key: b.key,
      });
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.code, 'provider_auth');
      assert.equal(await monthlyCallsUsed(t.handle.db, b.accountId), 2 * i, 'one call per provider per run');
    }
    // With the keys fixed, the month still has room for a full run.
    failing.clear();
    const ok = await call(t.url, `/api/v1/geo/sites/${b.siteId}/visibility/run`, {
      method: 'POST',
      key: b.key,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.status, 'done');
    assert.equal(await monthlyCallsUsed(t.handle.db, b.accountId), 8 + 12);
  });

  it('a run retried after a crash refunds against the calls of every attempt, not the retry’s alone', async () => {
    const c = await setup('crash');
    // A run row of the test's own (no job): the test plays the worker's two attempts. One provider,
    // 2 prompts x 3 runs: 6 calls reserved.
    const runId = `gr_crash${Date.now()}`;
    await t.handle.db
      .insertInto('geo_runs')
      .values({
        id: runId,
        account_id: c.accountId,
        site_id: String(c.siteId),
        kind: 'visibility',
        trigger: 'api',
        providers: ['openai'],
        runs_per_prompt: 3,
        sites: JSON.stringify([{ id: c.siteId, url: 'https://crash.example/', label: 'crash', isOwn: true }]),
      })
      .execute();
    const config = loadConfig({ ...process.env, ...env });
    const log = createLogger('test', new Writable({ write: (_c, _e, done) => done() }), 'silent');
    const sent = () => fake.requests.filter((r) => r.prompt?.startsWith('crash:')).length;

    // Attempt 1: three answers, the fourth call hangs, and the worker shuts down (a crash).
    let n = 0;
    plans.set('crash:', () => (++n <= 3 ? answer : { kind: 'hang' }));
    const shutdown = new AbortController();
    const first = executeRun({ db: t.handle.db, config, log, signal: shutdown.signal }, runId);
    while (sent() < 4) await new Promise((r) => setTimeout(r, 20));
    shutdown.abort();
    await assert.rejects(first, /shutting down/);
    assert.equal(sent(), 4);

    // Attempt 2 (the job's retry): the key was revoked meanwhile, its first call fails at once.
    plans.set('crash:', () => ({ kind: 'status', status: 401, body: { error: 'bad key' } }));
    await executeRun({ db: t.handle.db, config, log, signal: new AbortController().signal }, runId);
    plans.delete('crash:');
    const run = await runRow(runId);
    assert.equal(run.status, 'failed');
    assert.deepEqual([run.calls_reserved, run.calls_made, sent()], [6, 5, 5]);
    // 5 calls went out over the two attempts: 1 of the 6 reserved is given back, not 5.
    assert.equal(run.calls_refunded, 1);
    assert.equal(await monthlyCallsUsed(t.handle.db, c.accountId), 5);
  });
});
