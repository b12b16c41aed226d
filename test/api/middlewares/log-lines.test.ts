import assert from 'node:assert/strict';
import http from 'node:http';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { defineRoute } from '../../../api/route.ts';
import { noEngines } from '../../../shared/geo/visibility-runs.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

// One log line per request, at the level its outcome deserves, read from the logger's real output:
// an answer given on purpose (4xx, 501, a documented 503) is one info or warn line without a
// stack; an unexpected failure is one error line with its stack.

const routes = [
  defineRoute({
    method: 'get',
    path: '/t/no-engine',
    operationId: 'noEngine',
    summary: 'a documented 503',
    tags: ['t'],
    access: { kind: 'public' },
    responses: { 200: { description: 'ok' } },
    handler() {
      throw noEngines();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/t/boom',
    operationId: 'boom',
    summary: 'an unexpected failure',
    tags: ['t'],
    access: { kind: 'public' },
    responses: { 200: { description: 'ok' } },
    handler() {
      throw new Error('unexpected failure in a handler');
    },
  }),
  defineRoute({
    method: 'get',
    path: '/t/n',
    operationId: 'n',
    summary: 'validated',
    tags: ['t'],
    access: { kind: 'public' },
    request: { query: z.object({ n: z.coerce.number().int() }) },
    responses: { 200: { description: 'ok' } },
    handler(ctx, input) {
      ctx.body = { n: input.query.n };
    },
  }),
];

interface Line {
  level: number;
  msg: string;
  requestId?: string;
  status?: number;
  code?: string;
  err?: { stack?: string };
}

const lines: Line[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
    done();
  },
});

let app: TestApp;
let base: string;

before(async () => {
  app = await startTestApp(routes, { env: { LOG_LEVEL: 'info' }, log: { sink, level: 'info' } });
  base = app.base;
});
after(() => app.close());

const LEVEL = { info: 30, warn: 40, error: 50 };

/** Sends the request and returns its status and every log line that names its request id. */
async function linesOf(path: string, method = 'GET') {
  const requestId = `log-test-${Math.random().toString(36).slice(2)}`;
  // node:http, not fetch: fetch refuses to send TRACE.
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(base + path, { method, headers: { 'X-Request-Id': requestId } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
  await new Promise((r) => setImmediate(r)); // the line is written once the answer has left
  return { status, lines: lines.filter((l) => l.requestId === requestId) };
}

describe('one log line per request', () => {
  it('a documented 503 (answer_engine_unavailable): one warn line, no stack', async () => {
    const r = await linesOf('/t/no-engine');
    assert.equal(r.status, 503);
    assert.equal(r.lines.length, 1, JSON.stringify(r.lines));
    assert.equal(r.lines[0]!.level, LEVEL.warn);
    assert.equal(r.lines[0]!.code, 'answer_engine_unavailable');
    assert.equal(r.lines[0]!.err, undefined);
  });

  it('TRACE (501): one line below error, no stack', async () => {
    const r = await linesOf('/t/n', 'TRACE');
    assert.equal(r.status, 501);
    assert.equal(r.lines.length, 1, JSON.stringify(r.lines));
    assert.ok(r.lines[0]!.level < LEVEL.error);
    assert.equal(r.lines[0]!.err, undefined);
  });

  it('4xx (400, 404, 405): one info line each, no stack', async () => {
    for (const [path, method, status] of [
      ['/t/n?n=x', 'GET', 400],
      ['/t/missing', 'GET', 404],
      ['/t/n', 'DELETE', 405],
    ] as const) {
      const r = await linesOf(path, method);
      assert.equal(r.status, status);
      assert.equal(r.lines.length, 1, `${method} ${path}: ${JSON.stringify(r.lines)}`);
      assert.equal(r.lines[0]!.level, LEVEL.info);
      assert.equal(r.lines[0]!.status, status);
      assert.equal(r.lines[0]!.err, undefined);
    }
  });

  it('an unexpected failure (500): one error line with the stack', async () => {
    const r = await linesOf('/t/boom');
    assert.equal(r.status, 500);
    assert.equal(r.lines.length, 1, JSON.stringify(r.lines));
    assert.equal(r.lines[0]!.level, LEVEL.error);
    assert.match(r.lines[0]!.err?.stack ?? '', /unexpected failure in a handler\n\s+at /);
  });

  it('a success: one info line', async () => {
    const r = await linesOf('/t/n?n=3');
    assert.equal(r.status, 200);
    assert.equal(r.lines.length, 1);
    assert.equal(r.lines[0]!.level, LEVEL.info);
  });
});
