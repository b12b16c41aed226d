import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { sql } from 'kysely';
import { auditJobKey } from '../../../shared/audits/jobs.ts';
import { loadConfig } from '../../../shared/config.ts';
import { createLogger } from '../../../shared/logger.ts';
import type { BrowserProvider, SlimLhr } from '../../../shared/scan-engine/browser.ts';
import { toGraphileTask } from '../../../worker/task.ts';
import generateAudit from '../../../worker/tasks/generate-audit.ts';
import { startAuditSite } from '../../fixtures/sites/audit-site/serve.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';

// An accessibility audit renders its key page in the browser. A worker shutdown that cuts the
// render short must not deliver a report without the browser checks: the job fails, keeps an
// attempt and runs again. The generate_audit task runs here as graphile-worker would call it,
// with a browser stand-in, so the shutdown lands exactly during the render.

let site: FixtureServer;
let t: TestApi;
let env: Record<string, string>;

before(async () => {
  site = await startAuditSite();
  env = { SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`, AUDIT_FULL_PAGES: '1' };
  t = await startTestApi(env); // no worker: the test runs the job itself
});
after(async () => {
  await t.close();
  await site.close();
});

const rejectOnAbort = (signal: AbortSignal | undefined) =>
  new Promise<never>((_, reject) => {
    const fail = () => reject(new Error('This operation was aborted'));
    if (signal?.aborted) fail();
    else signal?.addEventListener('abort', fail, { once: true });
  });

/** A browser whose render and Lighthouse run answer as given (the test's stand-in for Chromium). */
function fakeBrowser(opts: {
  render: (signal: AbortSignal | undefined) => Promise<never>;
  lighthouse: (signal: AbortSignal | undefined) => Promise<SlimLhr>;
}): BrowserProvider {
  return () => ({
    pool: {
      use: (o) => opts.render(o.signal),
      stats: {} as never,
      close: async () => {},
    },
    lighthouse: { run: (_url, o) => opts.lighthouse(o?.signal) },
  });
}

/** Places an accessibility audit and takes its job as a worker would (this is attempt `attempt`). */
async function placeAndTake(attempt: 'first' | 'last') {
  const key = await t.newKey('A', 'pro', { rateLimit: 100_000 });
  const placed = await call(t.url, '/api/v1/audit', {
    method: 'POST',
    key,
    body: { product: 'accessibility_audit', target_url: site.url },
  });
  assert.equal(placed.status, 201, placed.text);
  const orderId: string = placed.body.order_id;
  const { rows } = await sql<{ id: string; attempts: number; max_attempts: number }>`
    update graphile_worker._private_jobs
       set attempts = ${attempt === 'last' ? sql`max_attempts` : sql`1`},
           locked_by = 'test-worker', locked_at = now()
     where key = ${auditJobKey(orderId)}
    returning id::text, attempts, max_attempts`.execute(t.handle.db);
  const job = rows[0]!;
  const helpers = { job: { id: job.id, attempts: job.attempts, max_attempts: job.max_attempts } };
  return { key, orderId, job, helpers: helpers as unknown as JobHelpers };
}

function task(shutdown: AbortSignal, browser: BrowserProvider) {
  return toGraphileTask(generateAudit, {
    db: t.handle.db,
    config: loadConfig({ ...process.env, LOG_LEVEL: 'silent', ...env }),
    log: createLogger('test', undefined, 'silent'),
    shutdown,
    browser,
  });
}

const orderRow = (id: string) =>
  t.handle.db
    .selectFrom('audit_orders')
    .select(['status', 'report', 'delivered_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('a worker shutdown during an audit', () => {
  it('cut off during the browser render: nothing is delivered and the job runs again', {
    timeout: 120_000,
  }, async () => {
    const { key, orderId, job, helpers } = await placeAndTake('last');
    const shutdown = new AbortController();
    let rendering = false;
    const browser = fakeBrowser({
      render: (signal) => {
        rendering = true;
        // The worker's shutdown bound passes while the key page is being rendered.
        shutdown.abort(new Error('worker shutting down'));
        return rejectOnAbort(signal);
      },
      lighthouse: rejectOnAbort,
    });
    await assert.rejects(
      async () => task(shutdown.signal, browser)({ orderId }, helpers),
      /worker shutting down/,
    );
    assert.ok(rendering, 'the shutdown came during the render');

    const row = await orderRow(orderId);
    assert.equal(row.status, 'generating', 'not delivered');
    assert.equal(row.report, null, 'no report stored');
    assert.equal(row.delivered_at, null);
    const { rows } = await sql<{ attempts: number; max_attempts: number }>`
      select attempts, max_attempts from graphile_worker.jobs where key = ${auditJobKey(orderId)}`.execute(
      t.handle.db,
    );
    assert.equal(rows[0]!.attempts, job.max_attempts, 'this was its last attempt ...');
    assert.ok(rows[0]!.max_attempts > rows[0]!.attempts, '... yet it keeps one to run again');

    // graphile-worker records the failure (unlocks the job): the order still waits for its re-run
    // rather than reading as stranded.
    await sql`update graphile_worker._private_jobs set locked_by = null, locked_at = null,
                 last_error = 'worker shutting down' where key = ${auditJobKey(orderId)}`.execute(
      t.handle.db,
    );
    const polled = await call(t.url, `/api/v1/audit/${orderId}`, { key });
    assert.equal(polled.status, 200, polled.text);
    assert.equal(polled.body.status, 'generating');
  });

  it('without a shutdown a failed browser still delivers, and only a page the browser saw counts as full mode', {
    timeout: 120_000,
  }, async () => {
    const never = new AbortController().signal;
    const crashed = () => Promise.reject(new Error('Target page, context or browser has been closed'));

    // Render and Lighthouse both fail (not a shutdown): delivered, every page quick mode.
    const a = await placeAndTake('first');
    await task(never, fakeBrowser({ render: crashed, lighthouse: crashed }))(
      { orderId: a.orderId },
      a.helpers,
    );
    assert.equal((await orderRow(a.orderId)).status, 'delivered');
    const reportA = await call(t.url, `/api/v1/audit/${a.orderId}/report.json`, { key: a.key });
    assert.equal(reportA.status, 200, reportA.text);
    assert.equal(reportA.body.crawl.full_mode_pages, 0, 'a failed render is not a full-mode page');
    assert.deepEqual(new Set(reportA.body.pages.map((p: { mode: string }) => p.mode)), new Set(['quick']));
    assert.ok(
      reportA.body.not_assessed.some((n: { reason: string }) => /browser has been closed/.test(n.reason)),
      JSON.stringify(reportA.body.not_assessed),
    );

    // Lighthouse succeeds where the render fails: the start page was seen by a browser.
    const b = await placeAndTake('first');
    const lhr: SlimLhr = {
      lighthouseVersion: '12.0.0',
      categories: { accessibility: { id: 'accessibility', title: 'Accessibility', score: 0.9 } },
      audits: {},
      timing: {},
    };
    await task(never, fakeBrowser({ render: crashed, lighthouse: async () => lhr }))(
      { orderId: b.orderId },
      b.helpers,
    );
    assert.equal((await orderRow(b.orderId)).status, 'delivered');
    const reportB = await call(t.url, `/api/v1/audit/${b.orderId}/report.json`, { key: b.key });
    assert.equal(reportB.body.crawl.full_mode_pages, 1);
    assert.deepEqual(
      reportB.body.pages
        .filter((p: { mode: string }) => p.mode === 'full')
        .map((p: { url: string }) => p.url),
      [site.url],
    );
  });
});
