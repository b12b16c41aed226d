import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { definePage, mountPages } from '../../../api/pages/page.ts';
import { html200, pageKit } from '../../../api/pages/web.ts';
import { loadConfig } from '../../../shared/config.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { EventListener } from '../../../shared/jobs/events.ts';
import { createLogger } from '../../../shared/logger.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// definePage's declarations are enforced before a handler runs: path parameters that do not
// parse are the not-found page, a form that does not parse is a 400 page naming its fields, a
// variant-only page is not found without a session of that variant, and machine callers pass on.

const pages = [
  definePage({
    method: 'get',
    path: '/t/item/:id',
    auth: 'anyone',
    params: z.object({ id: z.string().regex(/^\d{1,4}$/) }),
    handler: async (ctx, _web, { params }) => html200(ctx, `item ${params.id}`),
  }),
  definePage({
    method: 'post',
    path: '/t/form',
    auth: 'anyone',
    form: z.object({ name: z.string().min(2), count: z.coerce.number().int().max(9) }),
    handler: async (ctx, _web, { form }) => html200(ctx, `got ${form.name} x${form.count}`),
  }),
  definePage({
    method: 'get',
    path: '/t/b-only',
    auth: 'B',
    handler: async (ctx) => html200(ctx, 'B page'),
  }),
  definePage({
    method: 'get',
    path: '/t/both',
    auth: 'anyone',
    forMachines: 'pass',
    handler: async (ctx) => html200(ctx, 'the page'),
  }),
];

let db: TestDatabase;
let handle: Db;
let server: http.Server;
let base: string;
let events: EventListener;

before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url);
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  events = new EventListener(db.url);
  const services = { config, db: handle.db, events, log: createLogger('t') };
  const router = new Router();
  router.use(koaBody());
  mountPages(router, pageKit(services), pages);
  const app = new Koa();
  app.use(router.routes());
  app.use((ctx) => {
    ctx.body = { behindThePages: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(async () => {
  server.close();
  await events.close();
  await handle.close();
  await db.drop();
});

const HTML = { accept: 'text/html' };
const TOKEN = 'a'.repeat(43); // a well-formed double-submit CSRF token

const postForm = (form: Record<string, string>) =>
  fetch(`${base}/t/form`, {
    method: 'POST',
    headers: { ...HTML, cookie: `sl_csrf=${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: TOKEN, ...form }),
  });

describe('definePage', () => {
  it('path parameters that do not parse are the not-found page; those that do reach the handler', async () => {
    const bad = await fetch(`${base}/t/item/abc`, { headers: HTML });
    assert.equal(bad.status, 404);
    assert.match(await bad.text(), /Not found/);
    const good = await fetch(`${base}/t/item/42`, { headers: HTML });
    assert.equal(good.status, 200);
    assert.equal(await good.text(), 'item 42');
  });

  it('a form that does not parse is a 400 page naming its fields; a good one reaches the handler parsed', async () => {
    const bad = await postForm({ name: 'x', count: '12' });
    assert.equal(bad.status, 400);
    const text = await bad.text();
    assert.match(text, /name:/);
    assert.match(text, /count:/);
    const good = await postForm({ name: 'widgets', count: '3' });
    assert.equal(good.status, 200);
    assert.equal(await good.text(), 'got widgets x3');
  });

  it('a variant-only page sends a browser without a session to sign in', async () => {
    const res = await fetch(`${base}/t/b-only`, { headers: HTML, redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.match(res.headers.get('location') ?? '', /^\/signin\?next=/);
  });

  it("forMachines 'pass': callers that do not ask for HTML reach what lies behind the pages", async () => {
    assert.equal(await (await fetch(`${base}/t/both`, { headers: HTML })).text(), 'the page');
    assert.deepEqual(
      await (await fetch(`${base}/t/both`, { headers: { accept: 'application/json' } })).json(),
      {
        behindThePages: true,
      },
    );
  });
});
