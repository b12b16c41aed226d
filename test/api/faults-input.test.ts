import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { toAppError } from '../../api/middlewares/errors.ts';
import { loadConfig } from '../../shared/config.ts';
import { toJsonb } from '../../shared/db/json.ts';
import { missingArtifacts } from '../../shared/scans/partial.ts';
import { insertFinishedScan, requestScan } from '../../shared/scans/scans.ts';
import { startWorker, type WorkerProcess } from '../../worker/runner.ts';
import { call } from '../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';
import { SpecChecker } from '../helpers/openapi.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

// Hostile input and half-finished work (issue 15): NUL bytes in pages and in request fields,
// Postgres' error text kept from clients, partial scans flagged and never cached, and a scan cut
// short by a worker shutdown run again instead of stored.

let site: FixtureServer;
let t: TestStack;
let spec: SpecChecker;
let slowHits = 0;
let slowSite: FixtureServer;

before(async () => {
  site = await startFixtureServer({
    root: path.resolve('test/fixtures/sites/quick-site'),
    routes: {
      '/nul': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-odd': 'a' })
          .end(
            '<!doctype html><html lang="en"><head><title>Nul\u0000title</title><meta name="description" content="d\u0000e"></head><body><h1>Hello\u0000</h1><p>\u0000\u0000 text \ud800</p><a href="/a\u0000b">x</a></body></html>',
          );
      },
    },
  });
  // Its llms.txt is slow on the first fetch only: the scan is mid-flight when the worker stops.
  slowSite = await startFixtureServer({
    root: path.resolve('test/fixtures/sites/quick-site'),
    routes: {
      '/llms.txt': (_req, res) => {
        if (++slowHits === 1) setTimeout(() => res.writeHead(404).end(), 4000);
        else res.writeHead(404).end();
      },
    },
  });
  t = await startTestStack({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port},127.0.0.1:${slowSite.port}` });
  spec = await SpecChecker.load(t.url);
});
after(async () => {
  await t.close();
  await site.close();
  await slowSite.close();
});

describe('NUL bytes', () => {
  it('a page with NUL bytes (and a lone surrogate) is scanned and stored', async () => {
    const key = await t.newKey('A', 'free');
    const res = await call(
      t.url,
      `/api/v1/scan?url=${encodeURIComponent(`${site.origin}/nul`)}&mode=quick&wait=60`,
      {
        key,
      },
    );
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/scan', res);
    const row = await t.handle.db
      .selectFrom('scans')
      .select(['status', 'artifacts'])
      .where('id', '=', res.body.scanId)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'done');
    const page = (row.artifacts as { Page: { html?: string; title?: string } }).Page;
    assert.ok(JSON.stringify(page).includes('Nultitle'), 'the NUL is dropped, the text kept');
  });

  it('toJsonb keeps text, drops NUL and replaces lone surrogates, and Postgres jsonb accepts it', async () => {
    const nasty = {
      a: 'x\u0000y',
      'k\u0000': '\\u0000 literal',
      s: '\ud800x',
      pair: '😀',
      low: '\udc00',
      bs: '\\\u0000',
    };
    const { rows } = await sql<{ v: Record<string, string> }>`select ${toJsonb(nasty)}::jsonb as v`.execute(
      t.handle.db,
    );
    assert.deepEqual(rows[0]!.v, {
      a: 'xy',
      k: '\\u0000 literal',
      s: '\ufffdx',
      pair: '😀',
      low: '\ufffd',
      bs: '\\',
    });
  });

  it('a NUL in a body field, a query parameter or a path parameter is a 400 naming the field', async () => {
    const key = await t.newKey('A', 'free', { plan: 'growth' });
    const label = await call(t.url, '/api/v1/monitor/sites', {
      method: 'POST',
      key,
      body: { url: site.origin, label: 'my\u0000site' },
    });
    assert.equal(label.status, 400, label.text);
    assert.match(label.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.deepEqual(
      label.body.errors.map((e: { field: string }) => e.field),
      ['body.label'],
    );
    const order = await call(t.url, '/api/v1/audit/%00', { key });
    assert.equal(order.status, 400, order.text);
    assert.equal(order.body.errors[0].field, 'params.order_id');
    const query = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(site.origin)}%00&mode=quick`, {
      key,
    });
    assert.equal(query.status, 400, query.text);
    assert.equal(query.body.errors[0].field, 'query.url');
    const page = await call(t.url, '/status/ab%00cd.json');
    assert.ok(page.status === 400 || page.status === 404, page.text);
    assert.ok(page.status < 500);
  });
});

describe('Postgres error text', () => {
  it('never reaches a client: a data error is a generic 422, a lost connection a 503 with Retry-After', async () => {
    const err = await sql`select ${'secret-value'}::int`.execute(t.handle.db).catch((e: unknown) => e);
    assert.match((err as Error).message, /secret-value/);
    const mapped = toAppError(err);
    assert.equal(mapped.status, 422);
    assert.doesNotMatch(mapped.detail, /secret-value|integer/);
    const refused = toAppError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    );
    assert.equal(refused.status, 503);
    assert.equal(refused.extra.headers?.['Retry-After'], '5');
  });
});

describe('partial scans', () => {
  it('missingArtifacts names what a mode should have and lacks', () => {
    const ok = { url: 'x' };
    const quick = {
      Page: ok,
      Resources: ok,
      RobotsTxt: ok,
      Sitemap: ok,
      LlmsTxt: ok,
      WellKnown: ok,
      AgentFetches: ok,
    };
    assert.deepEqual(missingArtifacts('quick', quick), []);
    assert.deepEqual(
      missingArtifacts('full', { ...quick, Rendered: ok, Lighthouse: { error: { message: 'aborted' } } }),
      ['Lighthouse'],
    );
    assert.deepEqual(missingArtifacts('full', { ...quick, Sitemap: { error: { message: 't' } } }), [
      'Sitemap',
      'Rendered',
      'Lighthouse',
    ]);
  });

  it('a partial scan says so in the answer and is never served from the cache', async () => {
    const url = `${site.origin}/?partial=1`;
    const done = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(url)}&mode=quick&wait=60`, {
      key: await t.newKey('A', 'free'),
    });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.partial, false);
    const row = await t.handle.db
      .selectFrom('scans')
      .selectAll()
      .where('id', '=', done.body.scanId)
      .executeTakeFirstOrThrow();
    // A later scan of the same URL lacked its sitemap (the gatherer failed).
    const partial = (target: string) =>
      insertFinishedScan(t.handle.db, {
        url: target,
        mode: 'quick',
        accountId: null,
        elapsedMs: 1000,
        error: null,
        artifacts: {
          ...(row.artifacts as object),
          Sitemap: { error: { message: 'Sitemap did not finish in time' } },
        },
        results: row.results as object,
      });
    const { id: partialId } = await partial(row.url);
    const b = await call(t.url, `/api/v1/scans/${partialId}?view=b`);
    assert.equal(b.status, 200, b.text);
    spec.check('GET', '/api/v1/scans/{id}', b);
    assert.equal(b.body.partial, true);
    assert.deepEqual(b.body.missingArtifacts, ['Sitemap']);
    // ... and says why, in every view that reports partial.
    assert.deepEqual(b.body.partialReasons, { Sitemap: 'Sitemap did not finish in time' });
    const a = await call(t.url, `/api/v1/scans/${partialId}?view=a`, { key: await t.newKey('A', 'free') });
    assert.equal(a.status, 200, a.text);
    spec.check('GET', '/api/v1/scans/{id}', a);
    assert.deepEqual(a.body.partialReasons, { Sitemap: 'Sitemap did not finish in time' });
    assert.equal(done.body.partialReasons, undefined, 'a complete scan has no reasons');
    // Within the TTL the newer, partial row is passed over for the complete one ...
    const reused = await requestScan(t.api.services, {
      url: new URL(row.url),
      mode: 'quick',
      accountId: null,
    });
    assert.equal(reused.id, done.body.scanId);
    // ... and with only a partial row, a fresh scan starts.
    const other = `${site.origin}/?partial=2`;
    const { id: onlyPartial } = await partial(other);
    const fresh = await requestScan(t.api.services, { url: new URL(other), mode: 'quick', accountId: null });
    assert.notEqual(fresh.id, onlyPartial);
    assert.equal(fresh.status, 'queued');
  });
});

describe('shutdown', () => {
  it('a scan aborted by a worker shutdown is not stored; it runs again and ends complete', async () => {
    const key = await t.newKey('A', 'free');
    // A worker of its own with a short shutdown bound; the stack's worker is stopped first so the
    // job lands on this one.
    await t.worker.close();
    const config = loadConfig({
      ...process.env,
      LOG_LEVEL: 'silent',
      SCAN_ALLOW_HOSTS: `127.0.0.1:${slowSite.port}`,
      WORKER_SHUTDOWN_TIMEOUT_MS: '300',
    });
    let worker: WorkerProcess = await startWorker(config, t.database.url, {
      metricsPort: null,
      crontab: null,
    });
    const res = await call(
      t.url,
      `/api/v1/scan?url=${encodeURIComponent(`${slowSite.origin}/`)}&mode=quick&wait=0`,
      {
        key,
      },
    );
    assert.equal(res.status, 202, res.text);
    const id = res.body.id as string;
    for (let i = 0; slowHits === 0; i++) {
      assert.ok(i < 600, 'the scan reached llms.txt');
      await new Promise((r) => setTimeout(r, 50));
    }
    await worker.close();
    const aborted = await t.handle.db
      .selectFrom('scans')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(aborted.status, 'queued', 'not stored as done');
    assert.equal(aborted.artifacts, null);
    const { rows } = await sql<{ attempts: number; max_attempts: number; last_error: string }>`
      select attempts, max_attempts, last_error from graphile_worker.jobs where key = ${`scan:${id}`}`.execute(
      t.handle.db,
    );
    assert.equal(rows[0]!.attempts, 1, 'the attempt is recorded as failed');
    assert.ok(rows[0]!.max_attempts > rows[0]!.attempts, 'and another one is kept');

    worker = await startWorker(config, t.database.url, { metricsPort: null, crontab: null });
    try {
      const done = await t.api.services.events.waitFor(
        `scan:${id}`,
        async () => {
          const r = await t.handle.db.selectFrom('scans').selectAll().where('id', '=', id).executeTakeFirst();
          return r?.status === 'done' || r?.status === 'failed' ? r : undefined;
        },
        30_000,
      );
      assert.equal(done?.status, 'done');
      const artifacts = done!.artifacts as Record<string, unknown>;
      assert.ok(
        artifacts.LlmsTxt && !('error' in (artifacts.LlmsTxt as object)),
        'LlmsTxt gathered on the re-run',
      );
      assert.ok(slowHits >= 2);
    } finally {
      await worker.close();
    }
  });
});
