import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fanOutGeoRuns } from '../../../shared/geo/schedule.ts';
import { wilson } from '../../../shared/geo/stats.ts';
import {
  type Behaviour,
  engineEnv,
  type FakeEngine,
  startFakeEngine,
  type Vendor,
} from '../../helpers/answer-engine.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// The end-to-end case on a real corpus site: GET .../check returns the six signals with
// their maxScores, a visibility run against the fake engine (OpenAI, Perplexity and Gemini wire
// formats, Gemini's redirects resolved by the worker through the safe fetcher) gives the
// expected citationRate and interval, share of voice ranks the competitor the engines cite more
// often above the own site; the same through MCP; and the Sunday fan-out.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SITES = path.join(CORPUS, 'static-sites');
const present = fs.existsSync(SITES);

let own: FixtureServer;
let rival: FixtureServer;
let fake: FakeEngine;
let t: TestStack;
let spec: SpecChecker;
let key: string;
let ownId: number;

const answer = (...cite: string[]): Behaviour => ({ kind: 'answer', text: 'From what I can find:', cite });

before(async () => {
  if (!present) return;
  own = await startFixtureServer({ root: SITES });
  rival = await startFixtureServer({ root: SITES });
  const ownUrl = (p: string) => `${own.origin}${p}`;
  const rivalUrl = (p: string) => `${rival.origin}${p}`;
  // Per prompt and vendor: own cited 9 of 18 askings, rival 12 of 18.
  const plan: Record<string, Partial<Record<Vendor, Behaviour>>> = {
    'Which landing page template generates more leads?': {
      openai: answer(ownUrl('/startbootstrap-landing-page/')),
      perplexity: answer(rivalUrl('/underscorejs-org/')),
      gemini: answer(rivalUrl('/underscorejs-org/docs/'), ownUrl('/startbootstrap-landing-page/index.html')),
    },
    'What is a good JavaScript utility library?': {
      openai: answer(rivalUrl('/underscorejs-org/index.html')),
      perplexity: answer(rivalUrl('/underscorejs-org/')),
      gemini: answer(ownUrl('/other-page')),
    },
  };
  fake = await startFakeEngine((vendor, prompt) => plan[prompt]?.[vendor] ?? answer());
  t = await startTestStack({
    ...engineEnv(fake, 'openai', 'perplexity', 'gemini'),
    SCAN_ALLOW_HOSTS: `127.0.0.1:${own.port},127.0.0.1:${rival.port},127.0.0.1:${fake.port}`,
    GEO_RUNS_PER_PROMPT: '3',
    GEO_WAIT_MS: '90000',
  });
  spec = await SpecChecker.load(t.url);
  key = await t.newKey('A', 'agent', { plan: 'growth' });
  const res = await call(t.url, '/api/v1/monitor/sites', {
    method: 'POST',
    key,
    body: { url: ownUrl('/startbootstrap-landing-page/index.html'), label: 'Start Bootstrap' },
  });
  assert.equal(res.status, 201, res.text);
  ownId = res.body.id;
  const comp = await call(t.url, '/api/v1/monitor/competitors', {
    method: 'POST',
    key,
    body: { url: rivalUrl('/underscorejs-org/index.html'), label: 'Underscore' },
  });
  assert.equal(comp.status, 201, comp.text);
  for (const [prompt, label] of [
    ['Which landing page template generates more leads?', 'leads'],
    ['What is a good JavaScript utility library?', 'utility'],
  ]) {
    const p = await call(t.url, '/api/v1/geo/prompts', { method: 'POST', key, body: { prompt, label } });
    assert.equal(p.status, 201, p.text);
  }
});
after(async () => {
  await t?.close();
  await Promise.all([own?.close(), rival?.close(), fake?.close()]);
});

describe('GEO end to end on a corpus site', {
  skip: present ? false : `corpus not found at ${SITES}`,
}, () => {
  it('GET .../check returns the six signals with maxScore 20/15/15/15/10/10 and a total of at most 85', async () => {
    const res = await call(t.url, `/api/v1/geo/sites/${ownId}/check?wait=90`, { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/check', res);
    assert.deepEqual(
      res.body.signals.map((s: { maxScore: number }) => s.maxScore),
      [20, 15, 15, 15, 10, 10],
    );
    assert.deepEqual(
      res.body.signals.map((s: { id: string }) => s.id),
      ['crawlers', 'llmstxt', 'schema', 'citability', 'indexnow', 'https'],
    );
    assert.ok(res.body.overallScore <= 85 && res.body.overallScore >= 0);
    // Served over plain http on loopback, with no llms.txt: those two cannot pass.
    const by = Object.fromEntries(res.body.signals.map((s: { id: string }) => [s.id, s]));
    assert.notEqual(by.https.status, 'pass');
    assert.ok(by.https.fix);
    assert.notEqual(by.llmstxt.status, 'pass');
  });

  it('a visibility run gives the expected citationRate and Wilson interval', async () => {
    const res = await call(t.url, `/api/v1/geo/sites/${ownId}/visibility/run`, { method: 'POST', key });
    assert.equal(res.status, 200, res.text);
    spec.check('POST', '/api/v1/geo/sites/{site_id}/visibility/run', res);
    assert.equal(res.body.totalPrompts, res.body.results.length);
    assert.deepEqual([res.body.answers, res.body.citedAnswers], [18, 9]);
    assert.ok(res.body.citedCount <= res.body.totalPrompts && res.body.citedCount > 0);
    assert.equal(res.body.citationRate, 0.5);
    assert.deepEqual(res.body.interval, wilson(9, 18));
    // Gemini's citations came through grounding redirects, resolved by the worker.
    assert.ok(fake.redirects.length >= 6);
    const gemini = res.body.platforms.find((p: { platform: string }) => p.platform === 'gemini');
    assert.equal(gemini.citedAnswers, 6);
  });

  it('share of voice ranks the competitor the engines cite more often above the own site', async () => {
    const res = await call(t.url, `/api/v1/geo/sites/${ownId}/geo-sov/run`, { method: 'POST', key });
    assert.equal(res.status, 200, res.text);
    spec.check('POST', '/api/v1/geo/sites/{site_id}/geo-sov/run', res);
    assert.equal(res.body.ownSite.citationRate, 0.5);
    assert.equal(res.body.competitors[0].citationRate, 0.6667);
    assert.equal(res.body.competitors[0].label, 'Underscore');
    assert.equal(res.body.yourRank, 2);
    assert.equal(res.body.gapToLeader, 0.1667);
    assert.equal(typeof res.body.ownSite.geoGrade, 'string', 'the grade of the check stored above');
  });

  it('seed prompts come from the site’s own headings and title, without its brand', async () => {
    const res = await call(t.url, `/api/v1/geo/sites/${ownId}/seed-prompts`, { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/seed-prompts', res);
    const prompts = res.body.prompts.map((p: { prompt: string }) => p.prompt);
    assert.ok(
      prompts.some((p: string) => /fully responsive design/i.test(p)),
      prompts.join('\n'),
    );
    assert.ok(prompts.some((p: string) => /landing page/i.test(p)));
    assert.ok(
      res.body.prompts.every((p: { source: string }) =>
        ['title', 'heading', 'faq', 'product', 'service', 'description'].includes(p.source),
      ),
    );
  });

  it('the MCP tools give the same results', async () => {
    const client = new Client({ name: 'geo-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const vis = (await client.callTool({
        name: 'run_visibility',
        arguments: { site_id: ownId },
      })) as CallToolResult;
      assert.ok(!vis.isError, JSON.stringify(vis.content));
      assert.equal((vis.structuredContent as { citationRate: number }).citationRate, 0.5);
      assert.match((vis.content[0] as { text: string }).text, /9 of 18/);
      const check = (await client.callTool({
        name: 'geo_check',
        arguments: { site_id: ownId },
      })) as CallToolResult;
      assert.ok(!check.isError, JSON.stringify(check.content));
      assert.equal((check.structuredContent as { maxScore: number }).maxScore, 85);
      const list = (await client.callTool({ name: 'list_geo_prompts', arguments: {} })) as CallToolResult;
      assert.equal((list.structuredContent as { used: number; quota: number }).quota, 10);
    } finally {
      await client.close();
    }
  });

  it('the Sunday fan-out schedules one visibility run per own site, once per Sunday, and the worker runs it', async () => {
    // The coming Sunday, 09:00 UTC (after its 04:00, which the site and prompts precede).
    const asOf = new Date();
    asOf.setUTCDate(asOf.getUTCDate() + 7 - asOf.getUTCDay());
    asOf.setUTCHours(9, 0, 0, 0);
    const opts = { batch: 100, providers: ['openai'], runsPerPrompt: 1, asOf };
    const first = await fanOutGeoRuns(t.handle.db, opts);
    assert.ok(first.scheduled >= 1);
    const again = await fanOutGeoRuns(t.handle.db, opts);
    assert.equal(again.scheduled, 0, 'the same Sunday twice adds nothing');
    const run = await t.handle.db
      .selectFrom('geo_runs')
      .selectAll()
      .where('site_id', '=', String(ownId))
      .where('schedule_slot', 'is not', null)
      .executeTakeFirstOrThrow();
    assert.equal(run.trigger, 'schedule');
    let status = run.status;
    for (let i = 0; i < 240 && (status === 'queued' || status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (
        await t.handle.db
          .selectFrom('geo_runs')
          .select('status')
          .where('id', '=', run.id)
          .executeTakeFirstOrThrow()
      ).status;
    }
    assert.equal(status, 'done');
    const answers = await t.handle.db
      .selectFrom('geo_answers')
      .selectAll()
      .where('run_id', '=', run.id)
      .execute();
    assert.equal(answers.length, 2, 'two prompts, one run each, one provider');
  });
});
