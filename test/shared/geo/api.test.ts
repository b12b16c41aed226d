import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// GEO for monitored sites through the real API, worker and database: plan gates, another
// account's site, the prompt quota, and fresh checks stored and served by /latest and /history.
// No answer engine is configured here, so visibility and share of voice answer 503.

let t: TestStack;
let spec: SpecChecker;
let site: FixtureServer;

before(async () => {
  site = await startFixtureServer({ root: path.resolve('test/fixtures/sites/quick-site') });
  t = await startTestStack({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
  spec = await SpecChecker.load(t.url);
});
after(async () => {
  await t?.close();
  await site?.close();
});

function assertProblem(
  res: { status: number; headers: Headers; body: { code: string } },
  status: number,
  code: string,
) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, code);
}

async function monitored(key: string, p = '/'): Promise<number> {
  const res = await call(t.url, '/api/v1/monitor/sites', {
    method: 'POST',
    key,
    body: { url: `${site.origin}${p}` },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

describe('GEO: gates', () => {
  it('needs an active Growth or Agency plan (403), a variant A key, and answers 404 for another account’s site', async () => {
    const none = await t.newKey('A', 'agent');
    for (const [method, p] of [
      ['GET', '/api/v1/geo/sites/1/check'],
      ['GET', '/api/v1/geo/sites/1/latest'],
      ['POST', '/api/v1/geo/sites/1/visibility/run'],
      ['GET', '/api/v1/geo/prompts'],
    ] as const) {
      const res = await call(t.url, p, { method, key: none, body: method === 'POST' ? {} : undefined });
      assertProblem(res, 403, 'subscription_required');
    }
    assertProblem(
      await call(t.url, '/api/v1/geo/prompts', { key: await t.newKey('B', 'optimisation') }),
      403,
      'variant_mismatch',
    );
    assertProblem(await call(t.url, '/api/v1/geo/prompts'), 401, 'unauthorized');

    const owner = await t.newKey('A', 'free', { plan: 'growth' });
    const other = await t.newKey('A', 'free', { plan: 'agency' });
    const id = await monitored(owner, '/');
    for (const p of ['check', 'citability', 'latest', 'history', 'seed-prompts']) {
      const res = await call(t.url, `/api/v1/geo/sites/${id}/${p}`, { key: other });
      assertProblem(res, 404, 'not_found');
    }
  });

  it('answers 503 answer_engine_unavailable for visibility and share of voice with no provider configured', async () => {
    const key = await t.newKey('A', 'pro', { plan: 'agency' });
    const id = await monitored(key, '/index.html');
    await call(t.url, '/api/v1/geo/prompts', {
      method: 'POST',
      key,
      body: { prompt: 'best docs site?', label: 'docs' },
    });
    for (const [method, p] of [
      ['POST', `/api/v1/geo/sites/${id}/visibility/run`],
      ['GET', `/api/v1/geo/sites/${id}/visibility`],
      ['POST', `/api/v1/geo/sites/${id}/geo-sov/run`],
      ['GET', `/api/v1/geo/sites/${id}/geo-sov`],
    ] as const) {
      const res = await call(t.url, p, { method, key });
      assertProblem(res, 503, 'answer_engine_unavailable');
      spec.check(method, p.replace(`/${id}/`, '/{site_id}/'), res);
    }
    const status = await call(t.url, '/api/v1/status');
    assert.equal(status.status, 200);
    assert.deepEqual(
      status.body.answerEngines.map((e: { id: string; available: boolean }) => [e.id, e.available]),
      [
        ['openai', false],
        ['anthropic', false],
        ['perplexity', false],
        ['gemini', false],
        ['openai_compatible', false],
      ],
    );
    spec.check('GET', '/api/v1/status', status);
  });
  it('MCP: the GEO tools answer JSON-RPC -32002 without a plan, and work with one', async () => {
    const connect = async (key: string) => {
      const client = new Client({ name: 'geo-gates', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      return client;
    };
    const none = await connect(await t.newKey('A', 'agent'));
    try {
      const calls: [string, Record<string, unknown>][] = [
        ['list_geo_prompts', {}],
        ['add_geo_prompt', { prompt: 'Who makes the best docs sites?', label: 'docs' }],
        ['geo_check', { site_id: 1 }],
        ['run_visibility', { site_id: 1 }],
        ['run_share_of_voice', { site_id: 1 }],
      ];
      for (const [name, args] of calls) {
        const err = await none.callTool({ name, arguments: args }).then(
          (r) => assert.fail(`${name} answered a result: ${JSON.stringify(r)}`),
          (e: { code?: number; message: string; data?: { code?: string } }) => e,
        );
        assert.equal(err.code, -32002, `${name}: ${err.message}`);
        assert.equal(err.data?.code, 'subscription_required', name);
        assert.match(err.message, /Growth or Agency/, name);
      }
    } finally {
      await none.close();
    }
    const planned = await connect(await t.newKey('A', 'agent', { plan: 'agency' }));
    try {
      const add = (await planned.callTool({
        name: 'add_geo_prompt',
        arguments: { prompt: 'Who makes the best docs sites?', label: 'docs' },
      })) as CallToolResult;
      assert.ok(!add.isError, JSON.stringify(add.content));
      const list = (await planned.callTool({ name: 'list_geo_prompts', arguments: {} })) as CallToolResult;
      assert.deepEqual(
        [
          (list.structuredContent as { used: number }).used,
          (list.structuredContent as { quota: number }).quota,
        ],
        [1, 20],
      );
      const vis = (await planned.callTool({
        name: 'run_visibility',
        arguments: { site_id: 1 },
      })) as CallToolResult;
      assert.equal(vis.isError, true, 'site 1 is not this account’s');
    } finally {
      await planned.close();
    }
  });
});

describe('GEO: prompts', () => {
  it('keeps 10 prompts on Growth (403 quota_exceeded on the 11th), room again after a delete; 409 on a duplicate', async () => {
    const key = await t.newKey('A', 'agent', { plan: 'growth' });
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call(t.url, '/api/v1/geo/prompts', {
        method: 'POST',
        key,
        body: { prompt: `Which tool is best for job ${i}?`, label: `job ${i}` },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.get('location'), `/api/v1/geo/prompts/${res.body.id}`);
      assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'id', 'label', 'prompt']);
      spec.check('POST', '/api/v1/geo/prompts', res);
      ids.push(res.body.id);
    }
    const over = await call(t.url, '/api/v1/geo/prompts', {
      method: 'POST',
      key,
      body: { prompt: 'one more?', label: 'x' },
    });
    assertProblem(over, 403, 'quota_exceeded');
    assert.match(over.body.detail, /10 canonical prompts/);
    spec.check('POST', '/api/v1/geo/prompts', over);

    const list = await call(t.url, '/api/v1/geo/prompts', { key });
    assert.equal(list.status, 200);
    assert.equal(list.body.quota, 10);
    assert.equal(list.body.used, 10);
    spec.check('GET', '/api/v1/geo/prompts', list);

    const del = await call(t.url, `/api/v1/geo/prompts/${ids[0]}`, { method: 'DELETE', key });
    assert.equal(del.status, 204);
    const again = await call(t.url, `/api/v1/geo/prompts/${ids[0]}`, { method: 'DELETE', key });
    assertProblem(again, 404, 'not_found');
    const dup = await call(t.url, '/api/v1/geo/prompts', {
      method: 'POST',
      key,
      body: { prompt: 'Which tool is best for job 3?', label: 'dup' },
    });
    assertProblem(dup, 409, 'prompt_exists');
    const ok = await call(t.url, '/api/v1/geo/prompts', {
      method: 'POST',
      key,
      body: { prompt: 'A new question?', label: 'new' },
    });
    assert.equal(ok.status, 201);
  });

  it('keeps 20 on Agency, and another account cannot delete them', async () => {
    const key = await t.newKey('A', 'agent', { plan: 'agency' });
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        call(t.url, '/api/v1/geo/prompts', {
          method: 'POST',
          key,
          body: { prompt: `Question number ${i}?`, label: `q${i}` },
        }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 20);
    assert.equal(results.filter((r) => r.status === 403).length, 4);
    const other = await t.newKey('A', 'free', { plan: 'agency' });
    const res = await call(t.url, `/api/v1/geo/prompts/${results.find((r) => r.status === 201)!.body.id}`, {
      method: 'DELETE',
      key: other,
    });
    assertProblem(res, 404, 'not_found');
  });

  it('rejects an empty prompt or label (400)', async () => {
    const key = await t.newKey('A', 'free', { plan: 'agency' });
    const res = await call(t.url, '/api/v1/geo/prompts', {
      method: 'POST',
      key,
      body: { prompt: ' ', label: '' },
    });
    assertProblem(res, 400, 'invalid_request');
  });
});

describe('GEO: checks of a monitored site', () => {
  it('runs a fresh check (stored), serves citability, latest and history', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const id = await monitored(key, '/');
    const check = await call(t.url, `/api/v1/geo/sites/${id}/check?wait=60`, { key });
    assert.equal(check.status, 200, check.text);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/check', check);
    assert.deepEqual(
      check.body.signals.map((s: { id: string; maxScore: number }) => [s.id, s.maxScore]),
      [
        ['crawlers', 20],
        ['llmstxt', 15],
        ['schema', 15],
        ['citability', 15],
        ['indexnow', 10],
        ['https', 10],
      ],
    );
    assert.equal(check.body.maxScore, 85);
    assert.ok(check.body.overallScore >= 0 && check.body.overallScore <= 85);
    assert.equal(
      check.body.overallScore,
      check.body.signals.reduce((s: number, x: { score: number }) => s + x.score, 0),
    );

    // A second check is fresh: another scan, another stored row.
    const second = await call(t.url, `/api/v1/geo/sites/${id}/check?wait=60`, { key });
    assert.equal(second.status, 200);
    assert.notEqual(second.body.scanId, check.body.scanId);

    const cit = await call(t.url, `/api/v1/geo/sites/${id}/citability?wait=60`, { key });
    assert.equal(cit.status, 200, cit.text);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/citability', cit);
    assert.deepEqual(Object.keys(cit.body.dimensions).sort(), [
      'answerBlockQuality',
      'selfContainment',
      'statisticalDensity',
      'structuralReadability',
      'uniquenessSignals',
    ]);

    const latest = await call(t.url, `/api/v1/geo/sites/${id}/latest`, { key });
    assert.equal(latest.status, 200);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/latest', latest);
    assert.equal(latest.body.check.scanId, second.body.scanId);
    assert.equal(latest.body.visibility, null);

    const history = await call(t.url, `/api/v1/geo/sites/${id}/history?per_page=1&page=2`, { key });
    assert.equal(history.status, 200, history.text);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/history', history);
    assert.equal(history.body.total, 2);
    assert.equal(history.body.items.length, 1);
    assert.equal(history.body.items[0].check.scanId, check.body.scanId);
  });

  it('answers 202 with a Location that polls the same scan when the wait is zero', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const id = await monitored(key, '/docs/');
    const res = await call(t.url, `/api/v1/geo/sites/${id}/check?wait=0`, { key });
    assert.equal(res.status, 202, res.text);
    spec.check('GET', '/api/v1/geo/sites/{site_id}/check', res);
    const loc = res.headers.get('location')!;
    assert.match(loc, new RegExp(`^/api/v1/geo/sites/${id}/check\\?scan_id=sc_`));
    let done: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 120 && (!done || done.status === 202); i++) {
      done = await call(t.url, `${loc}&wait=1`, { key });
    }
    assert.equal(done!.status, 200, done!.text);
    assert.equal(done!.body.scanId, res.body.scanId);
  });
});
