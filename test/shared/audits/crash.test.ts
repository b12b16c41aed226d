import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { freePort } from '../../../shared/db/embedded.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { type FixtureServer, type RouteHandler, startFixtureServer } from '../../helpers/fixture-server.ts';
import { type Proc, runSightline } from '../../helpers/processes.ts';

// A worker process is killed with SIGKILL in the middle of generating a report. A new worker
// must finish the order within minutes (heartbeats expose the dead worker, its job is released
// instead of waiting out graphile-worker's 4-hour lock), with exactly one report and one webhook.

const PAGES = 12;
const PAGE_DELAY_MS = 1500; // with one page at a time, the crawl takes about 20 s

let site: FixtureServer;
let receiver: http.Server;
let receiverPort: number;
const hookBodies: string[] = [];
let t: TestApi;
let env: Record<string, string>;
const workers: Proc[] = [];

before(async () => {
  const routes: Record<string, RouteHandler> = {
    '/': (_req, res) => {
      const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i + 1}">Page ${i + 1}</a>`).join(
        ' ',
      );
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><html lang="en"><title>Slow site</title><h1>Slow</h1>${links}`);
    },
  };
  for (let i = 1; i <= PAGES; i++) {
    routes[`/p${i}`] = (_req, res) =>
      setTimeout(
        () =>
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              `<!doctype html><html lang="en"><title>Page ${i}</title><h1>Page ${i}</h1><p>Slow page.</p>`,
            ),
        PAGE_DELAY_MS,
      );
  }
  site = await startFixtureServer({ routes });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hookBodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverPort = (receiver.address() as AddressInfo).port;
  const port = String(await freePort());
  const allow = `127.0.0.1:${site.port},127.0.0.1:${receiverPort}`;
  t = await startTestApi({ PORT: port, SCAN_ALLOW_HOSTS: allow });
  env = {
    DATABASE_URL: t.database.url,
    PORT: port, // the public base URL in report links
    SCAN_ALLOW_HOSTS: allow,
    AUDIT_CONCURRENCY: '1',
    AUDIT_FULL_PAGES: '0',
    WORKER_METRICS_PORT: '0',
    WORKER_CONCURRENCY: '2',
    LOG_LEVEL: 'info',
  };
});
after(async () => {
  // Only processes still running: one that already died never emits 'exit' again.
  for (const w of workers)
    if (w.child.exitCode === null && w.child.signalCode === null) await w.stop('SIGKILL');
  await t.close();
  await site.close();
  receiver.closeAllConnections();
  receiver.close();
});

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) {
      const logs = workers.map((w, i) => `--- worker ${i + 1}\n${w.output().slice(-3000)}`).join('\n');
      throw new Error(`timed out waiting for ${what}\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const slowHits = () => site.hits.filter((h) => /^\/p\d+$/.test(h.url)).length;

describe('a worker killed mid-report', () => {
  it('the order is delivered by another worker, with one report and one webhook', {
    timeout: 360_000,
  }, async () => {
    const key = await t.newKey('A', 'agent', { rateLimit: 100_000 }); // polled often; webhooks are agent tier
    const placed = await call(t.url, '/api/v1/audit', {
      method: 'POST',
      key,
      body: {
        product: 'content_audit',
        target_url: site.url,
        webhook_url: `http://127.0.0.1:${receiverPort}/hook`,
      },
    });
    assert.equal(placed.status, 201, placed.text);
    const id: string = placed.body.order_id;

    const first = runSightline(['worker', '--no-migrate'], env);
    workers.push(first);
    await until(
      'the first worker to be generating, a few pages into the crawl',
      async () => {
        if (first.child.exitCode !== null) throw new Error(`worker exited: ${first.output()}`);
        const o = await call(t.url, `/api/v1/audit/${id}`, { key });
        return o.body.status === 'generating' && slowHits() >= 3 ? true : undefined;
      },
      60_000,
    );
    const { rows: locked } = await sql<{ locked_by: string | null }>`
      select locked_by from graphile_worker.jobs where key = ${`audit:${id}`}`.execute(t.handle.db);
    assert.ok(locked[0]?.locked_by, 'the job is held by the first worker');

    await first.stop('SIGKILL');
    assert.equal(first.child.signalCode, 'SIGKILL');
    const hitsAtKill = slowHits();
    assert.ok(hitsAtKill < PAGES + 1, 'killed before the crawl finished');
    assert.equal((await call(t.url, `/api/v1/audit/${id}`, { key })).body.status, 'generating');

    const second = runSightline(['worker', '--no-migrate'], env);
    workers.push(second);
    const done = await until(
      'delivery by the second worker',
      async () => {
        if (second.child.exitCode !== null) throw new Error(`worker exited: ${second.output()}`);
        const o = await call(t.url, `/api/v1/audit/${id}`, { key });
        if (o.body.status === 'failed') throw new Error(`order failed: ${JSON.stringify(o.body)}`);
        return o.body.status === 'delivered' ? o : undefined;
      },
      300_000,
    );
    assert.match(
      second.output(),
      /released jobs of dead workers/,
      'the dead worker was detected by its missing heartbeat',
    );
    assert.ok(slowHits() > hitsAtKill, 'the second worker crawled again');

    // One complete report: every page, not the first worker's partial crawl.
    const report = await call(t.url, done.body.report_json_url.slice(t.url.length));
    assert.equal(report.status, 200);
    assert.equal(report.body.pages.length, PAGES + 1);
    const row = await t.handle.db
      .selectFrom('audit_orders')
      .select(['attempts', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.attempts, 2, 'one killed run, one finished run');

    // One delivery: recorded once, received once, and nothing left that could send another.
    await until(
      'the job to finish',
      async () => {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from graphile_worker.jobs where key = ${`audit:${id}`}`.execute(
          t.handle.db,
        );
        return rows[0]!.n === 0 ? true : undefined;
      },
      30_000,
    );
    const deliveries = await t.handle.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subject', '=', id)
      .execute();
    assert.deepEqual(
      deliveries.map((d) => [d.event, d.status]),
      [['audit.delivered', 'delivered']],
    );
    assert.equal(hookBodies.filter((b) => b.includes(id)).length, 1);
    await second.stop('SIGTERM');
  });

  it('a job taken from a live worker is not generated a second time beside it', {
    timeout: 180_000,
  }, async () => {
    const key = await t.newKey('A', 'agent', { rateLimit: 100_000 });
    const placed = await call(t.url, '/api/v1/audit', {
      method: 'POST',
      key,
      body: {
        product: 'seo_audit',
        target_url: site.url,
        webhook_url: `http://127.0.0.1:${receiverPort}/hook`,
      },
    });
    const id: string = placed.body.order_id;
    const before = site.hits.length;
    const a = runSightline(['worker', '--no-migrate'], env);
    const b = runSightline(['worker', '--no-migrate'], env);
    workers.push(a, b);
    const pagesSince = () => site.hits.slice(before).filter((h) => /^\/p\d+$/.test(h.url));
    await until('generation under way', async () => (pagesSince().length >= 2 ? true : undefined), 60_000);
    // As if the worker had been taken for dead (a missed heartbeat): its job is released while it
    // is still generating, and another worker may take it.
    await sql`select graphile_worker.force_unlock_workers(array_agg(locked_by)) from graphile_worker.jobs
      where key = ${`audit:${id}`} and locked_by is not null`.execute(t.handle.db);
    const done = await until(
      'delivery',
      async () => {
        const o = await call(t.url, `/api/v1/audit/${id}`, { key });
        if (o.body.status === 'failed') throw new Error(JSON.stringify(o.body));
        return o.body.status === 'delivered' ? o : undefined;
      },
      120_000,
    );
    await until(
      'the job to finish',
      async () => {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from graphile_worker.jobs where key = ${`audit:${id}`}`.execute(
          t.handle.db,
        );
        return rows[0]!.n === 0 ? true : undefined;
      },
      60_000,
    );
    assert.match(a.output() + b.output(), /order is being generated by another live run/);
    const perPage = new Map<string, number>();
    for (const h of pagesSince()) perPage.set(h.url, (perPage.get(h.url) ?? 0) + 1);
    assert.equal(perPage.size, PAGES);
    assert.deepEqual(new Set(perPage.values()), new Set([1]), 'every page was fetched once: one crawl');
    const row = await t.handle.db
      .selectFrom('audit_orders')
      .select('attempts')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.attempts, 1, 'only the live run generated');
    assert.equal(hookBodies.filter((h) => h.includes(id)).length, 1);
    assert.equal(done.body.status, 'delivered');
    await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
  });
});
