import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineRoute } from '../../../api/route.ts';
import { routes as defaultRoutes } from '../../../api/routes/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

// Pages that never show raw data: a browser gets errors outside /api/ as HTML pages, and the
// footer's links lead to pages; machine clients (JSON or no Accept) get what they always got.

const boom = defineRoute({
  method: 'get',
  path: '/t/boom',
  operationId: 'boom',
  summary: 'an unexpected failure outside /api/',
  tags: ['t'],
  access: { kind: 'public' },
  responses: { 200: { description: 'ok' } },
  handler() {
    throw new Error('secret internal detail');
  },
});

let app: TestApp;
let base: string;

before(async () => {
  app = await startTestApp([...defaultRoutes, boom]);
  base = app.base;
});
after(() => app.close());

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function get(path: string, accept?: string, method = 'GET') {
  const res = await fetch(base + path, { method, headers: accept ? { accept } : {}, redirect: 'manual' });
  return { res, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

describe('error pages for people', () => {
  it('404, 405 and 500 outside /api/ are HTML pages for a browser, with the same status', async () => {
    const missing = await get('/no/such/page', BROWSER);
    assert.equal(missing.res.status, 404);
    assert.match(missing.type, /^text\/html/);
    assert.match(missing.text, /<h1>Not found<\/h1>/);
    assert.doesNotMatch(missing.text, /"type":|problem/);

    const wrong = await get('/docs', BROWSER, 'DELETE');
    assert.equal(wrong.res.status, 405);
    assert.match(wrong.type, /^text\/html/);
    assert.ok(wrong.res.headers.get('allow')?.includes('GET'));
    assert.match(wrong.text, /Method not allowed/);

    const failed = await get('/t/boom', BROWSER);
    assert.equal(failed.res.status, 500);
    assert.match(failed.type, /^text\/html/);
    assert.doesNotMatch(failed.text, /secret internal detail/);
    assert.equal(failed.res.headers.get('x-frame-options'), 'DENY');
    assert.ok(failed.res.headers.get('x-ratelimit-limit'), 'rate headers as on every answer');
  });

  it('machine clients and machine addresses keep problem+json', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const r = await get('/no/such/page', accept);
      assert.equal(r.res.status, 404);
      assert.match(r.type, /^application\/problem\+json/, String(accept));
      assert.equal(JSON.parse(r.text).code, 'not_found');
    }
    for (const path of ['/api/v1/nothing', '/metrics/x', '/.well-known/nothing.json', '/status/abc.json']) {
      const r = await get(path, BROWSER);
      assert.match(r.type, /^application\/problem\+json/, path);
    }
    const mcpDelete = await get('/mcp', BROWSER, 'DELETE');
    assert.equal(mcpDelete.res.status, 405);
    assert.doesNotMatch(mcpDelete.type, /^text\/html/);
  });
});

describe('footer pages', () => {
  it('the footer links to pages for people, not to JSON', async () => {
    const home = await get('/', BROWSER);
    const footer = /<footer[^>]*>([\s\S]*?)<\/footer>/.exec(home.text)?.[1] ?? '';
    const links = [...footer.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(links.length >= 4, footer);
    for (const href of links) {
      const r = await get(href, BROWSER);
      assert.equal(r.res.status, 200, href);
      assert.match(r.type, /^text\/html/, href);
    }
  });

  it('the service status page says whether the service is operational, as /api/v1/status', async () => {
    const page = await get('/status', BROWSER);
    assert.equal(page.res.status, 200);
    assert.match(page.text, /Sightline is operational/);
    assert.match(page.text, /href="\/api\/v1\/status"/);
    const json = await get('/api/v1/status', BROWSER);
    assert.equal(JSON.parse(json.text).status, 'operational');
    assert.equal((await get('/status')).res.status, 404, 'machine clients: no page there, as before');
  });

  it('the MCP page explains how to connect a client; MCP clients get the discovery record', async () => {
    const page = await get('/mcp', BROWSER);
    assert.equal(page.res.status, 200);
    assert.match(page.text, /claude mcp add --transport http sightline http:\/\/[^ ]+\/mcp/);
    assert.match(page.text, /Authorization: Bearer/);
    for (const accept of [undefined, 'application/json']) {
      const record = await get('/mcp', accept);
      assert.equal(record.res.status, 200);
      assert.equal(JSON.parse(record.text).protocol, 'jsonrpc-2.0');
    }
    const stream = await get('/mcp', 'text/event-stream');
    assert.equal(stream.res.status, 405);
  });
});
