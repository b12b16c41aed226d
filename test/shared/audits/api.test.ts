import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { main } from '../../../cli/main.ts';
import { createAccount } from '../../../shared/accounts/accounts.ts';
import { resetConfig } from '../../../shared/config.ts';
import { freePort } from '../../../shared/db/embedded.ts';
import { addJob } from '../../../shared/jobs/queue.ts';
import { siteAuditModel } from '../../../shared/scan-engine/models/site-audit.ts';
import { startAuditSite } from '../../fixtures/sites/audit-site/serve.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, selfSignedCert } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Audit orders end to end: API -> order + job in one transaction -> worker crawls the fixture
// site, runs the product's checks on every page -> report stored -> served as JSON and HTML ->
// audit.delivered webhook to a local receiver, verified with the standardwebhooks package.

interface Hook {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let site: FixtureServer;
let receiver: http.Server;
let receiverPort: number;
let sparePort: number;
const hooks: Hook[] = [];
let t: TestStack;
let spec: SpecChecker;
let pro: string;

before(async () => {
  site = await startAuditSite({
    '/down': (_req, res) => res.writeHead(503).end('maintenance'),
    '/gone': (_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<title>gone</title>'),
  });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hooks.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/hook') res.writeHead(200).end('ok');
      else if (req.url === '/redirect')
        res.writeHead(307, { location: `http://127.0.0.1:${receiverPort}/hook` }).end();
      else res.writeHead(500).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverPort = (receiver.address() as AddressInfo).port;
  // A known port, so report_url (built from the public base URL) points at this API.
  const port = await freePort();
  sparePort = await freePort(); // a target that answers only while a test serves it
  t = await startTestStack({
    PORT: String(port),
    SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port},127.0.0.1:${receiverPort},127.0.0.1:${sparePort}`,
    AUDIT_FULL_PAGES: '0',
    AUDIT_MAX_ATTEMPTS: '2',
  });
  spec = await SpecChecker.load(t.url);
  pro = await t.newKey('A', 'pro', { rateLimit: 100_000 }); // polled often
});
after(async () => {
  await t.close();
  await site.close();
  receiver.closeAllConnections();
  receiver.close();
});

const order = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  call(t.url, '/api/v1/audit', { method: 'POST', key, body, headers });

const orderCount = async () =>
  Number(
    (
      await t.handle.db
        .selectFrom('audit_orders')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function pollDelivered(key: string, id: string, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(t.url, `/api/v1/audit/${id}`, { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/audit/{order_id}', res);
    if (res.body.status === 'delivered' || res.body.status === 'failed') return res;
    if (Date.now() > until) throw new Error(`order ${id} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const paths = (urls: string[]) => urls.map((u) => new URL(u).pathname);
// biome-ignore lint/suspicious/noExplicitAny: report JSON
const findings = (report: any) => Object.values(report.findings).flat() as any[];
// biome-ignore lint/suspicious/noExplicitAny: report JSON
const affected = (report: any, checkId: string) => {
  const f = findings(report).find((x) => x.check_id === checkId);
  assert.ok(
    f,
    `${report.product.id}: expected a ${checkId} finding; got ${findings(report)
      .map((x) => x.check_id)
      .join(', ')}`,
  );
  return paths(f.affected.map((a: { url: string }) => a.url));
};

describe('POST /api/v1/audit: who may order, and what', () => {
  it('Free keys get 403, B keys 403, no key 401', async () => {
    const body = { product: 'seo_audit', target_url: site.url };
    const free = await order(await t.newKey('A', 'free'), body);
    assert.equal(free.status, 403);
    assert.equal(free.body.code, 'tier_required');
    spec.check('POST', '/api/v1/audit', free);
    const b = await order(await t.newKey('B', 'optimisation'), body);
    assert.equal(b.status, 403);
    assert.equal(b.body.code, 'variant_mismatch');
    const none = await call(t.url, '/api/v1/audit', { method: 'POST', body });
    assert.equal(none.status, 401);
  });

  it('validates product, target_url, webhook_url and the Idempotency-Key header (400, naming the field)', async () => {
    const cases: [unknown, string, string, Record<string, string>?][] = [
      [{ product: 'pizza_audit', target_url: site.url }, 'invalid_request', 'body.product'],
      [{ product: 'seo_audit' }, 'invalid_request', 'body.target_url'],
      [{ product: 'seo_audit', target_url: 'ftp://example.com/' }, 'url_not_allowed', 'body.target_url'],
      [{ product: 'seo_audit', target_url: 'http://10.0.0.1/' }, 'url_not_allowed', 'body.target_url'],
      [
        { product: 'seo_audit', target_url: site.url, webhook_url: 'http://169.254.169.254/hook' },
        'url_not_allowed',
        'body.webhook_url',
      ],
      [
        { product: 'seo_audit', target_url: site.url },
        'invalid_request',
        'header.Idempotency-Key',
        { 'idempotency-key': 'x'.repeat(300) },
      ],
    ];
    const agent = await t.newKey('A', 'agent');
    for (const [body, code, field, headers] of cases) {
      const res = await order(agent, body, headers);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.code, code);
      assert.ok(
        res.body.errors.some((e: { field: string }) => e.field === field),
        `${field}: ${res.text}`,
      );
      spec.check('POST', '/api/v1/audit', res);
    }
    assert.equal(await orderCount(), 0, 'no order was created');
  });

  it('delivery by webhook is the agent tier’s: a pro key giving webhook_url is 403 tier_required', async () => {
    const body = { product: 'seo_audit', target_url: site.url, webhook_url: 'https://hooks.example/x' };
    const res = await order(pro, body);
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.code, 'tier_required');
    spec.check('POST', '/api/v1/audit', res);
    assert.equal(await orderCount(), 0, 'no order was created');
  });
});

// What each product must find on the fixture site: real defects of that dimension, on the
// pages that have them (and not on the pages that do not).
const EXPECTED: Record<string, [checkId: string, includes: string[], excludes?: string[]][]> = {
  seo_audit: [
    ['seo-http-status', ['/old-offers.html']],
    ['seo-indexable', ['/blog/old-post.html'], ['/']],
    ['seo-meta-description', ['/about.html', '/legacy.html'], ['/', '/services.html']],
    ['seo-title', ['/legacy.html']],
  ],
  speed_audit: [
    ['speed-image-weight', ['/']],
    ['speed-render-blocking', ['/', '/services.html'], ['/about.html']],
    ['speed-compression', ['/', '/services.html']],
  ],
  security_audit: [
    ['https', ['/', '/about.html', '/contact.html']],
    ['content-security-policy', ['/']],
    ['x-frame-options', ['/']],
  ],
  accessibility_audit: [
    ['a11y-image-alt', ['/gallery.html', '/services.html', '/contact.html'], ['/']],
    ['a11y-viewport-zoom', ['/gallery.html'], ['/']],
    ['a11y-form-labels', ['/contact.html']],
    ['a11y-button-names', ['/contact.html']],
  ],
  mobile_audit: [
    ['mobile-viewport', ['/pricing.html', '/legacy.html'], ['/']],
    ['mobile-fixed-widths', ['/pricing.html']],
    ['mobile-font-size', ['/pricing.html']],
  ],
  content_audit: [
    ['content-word-count', ['/about.html'], ['/services.html']],
    ['content-duplicate-headings', ['/services.html']],
    ['content-image-alt', ['/gallery.html']],
  ],
  conversion_audit: [
    ['conversion-forms', ['/contact.html']],
    ['conversion-contact', ['/blog/']],
    ['conversion-cta', ['/about.html'], ['/']],
  ],
};

describe('the seven products, end to end', () => {
  it('each is delivered with a report of real findings of its own dimension on the fixture site', async () => {
    const placed: { product: string; id: string }[] = [];
    for (const product of Object.keys(EXPECTED)) {
      const res = await order(pro, { product, target_url: site.url });
      assert.equal(res.status, 201, res.text);
      spec.check('POST', '/api/v1/audit', res);
      assert.equal(res.body.status, 'paid');
      assert.equal(res.body.product, product);
      assert.equal(res.body.webhook_url, null);
      assert.ok(
        Number.isInteger(res.body.estimated_delivery_minutes) && res.body.estimated_delivery_minutes > 0,
      );
      assert.equal(res.headers.get('location'), `/api/v1/audit/${res.body.order_id}`);
      placed.push({ product, id: res.body.order_id });
    }
    const products = new Map(
      (await t.handle.db.selectFrom('audit_products').select(['id', 'dimension']).execute()).map((p) => [
        p.id,
        p.dimension,
      ]),
    );
    for (const { product, id } of placed) {
      const done = await pollDelivered(pro, id);
      assert.equal(done.body.status, 'delivered', JSON.stringify(done.body));
      assert.match(done.body.delivered_at, /^\d{4}-\d\d-\d\dT/);
      assert.ok(done.body.report_summary.length > 20);
      assert.equal(done.body.target_url, site.url);
      assert.ok(
        done.body.report_url.startsWith(`${t.url}/api/v1/audit/${id}/report?token=`),
        done.body.report_url,
      );

      const rel = done.body.report_json_url.slice(t.url.length);
      const report = await call(t.url, rel);
      assert.equal(report.status, 200, report.text);
      spec.check('GET', '/api/v1/audit/{order_id}/report.json', report);
      const r = report.body;
      assert.equal(r.order_id, id);
      assert.equal(r.product.id, product);
      assert.equal(r.dimension.id, products.get(product));
      assert.equal(r.summary, done.body.report_summary);
      assert.ok(r.score >= 0 && r.score <= 100);
      const dimensionChecks = new Set(
        siteAuditModel.dimensions.find((d) => d.id === r.dimension.id)!.checks.map((c) => c.id),
      );
      for (const f of findings(r))
        assert.ok(
          dimensionChecks.has(f.check_id),
          `${product}: ${f.check_id} is not a ${r.dimension.id} check`,
        );
      for (const [checkId, includes, excludes = []] of EXPECTED[product]!) {
        const urls = affected(r, checkId);
        for (const p of includes)
          assert.ok(urls.includes(p), `${product} ${checkId}: ${p} not in ${urls.join(', ')}`);
        for (const p of excludes)
          assert.ok(!urls.includes(p), `${product} ${checkId}: ${p} should not be affected`);
      }
      const pages = paths(r.pages.map((p: { url: string }) => p.url));
      assert.equal(pages[0], '/');
      assert.ok(pages.includes('/legacy.html'), 'the sitemap-only page was crawled');
      assert.ok(!pages.some((p) => p.startsWith('/private/')));
      assert.ok(
        r.crawl.skipped.disallowed_by_robots.some((u: string) => u.endsWith('/private/members.html')),
      );
    }
    assert.ok(
      !site.hits.some((h) => h.url.startsWith('/private/')),
      'robots.txt was honoured on every crawl',
    );

    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    assert.match(metrics, /sightline_audit_orders_total\{product="seo_audit",state="delivered"\} [1-9]/);
    assert.match(
      metrics,
      /sightline_audit_generation_duration_seconds_count\{product="mobile_audit",outcome="delivered"\} [1-9]/,
    );
  });
});

describe('reading orders and reports', () => {
  let id: string;
  let reportUrl: string;
  before(async () => {
    const res = await order(pro, { product: 'accessibility_audit', target_url: site.url });
    id = res.body.order_id;
    reportUrl = (await pollDelivered(pro, id)).body.report_url;
  });

  it("another account's order is 404, as is an unknown id; Free keys may poll (404 here, not 403)", async () => {
    const other = await call(t.url, `/api/v1/audit/${id}`, { key: await t.newKey('A', 'agent') });
    assert.equal(other.status, 404);
    spec.check('GET', '/api/v1/audit/{order_id}', other);
    assert.equal((await call(t.url, '/api/v1/audit/ao_doesnotexist0000', { key: pro })).status, 404);
    const free = await call(t.url, `/api/v1/audit/${id}`, { key: await t.newKey('A', 'free') });
    assert.equal(free.status, 404, 'free tier may poll, but only its own orders');
  });

  it('report_url serves a self-contained HTML page without the key; a wrong token is 404', async () => {
    const rel = reportUrl.slice(t.url.length);
    const res = await call(t.url, rel);
    assert.equal(res.status, 200);
    spec.check('GET', '/api/v1/audit/{order_id}/report', { ...res, body: res.text });
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.match(res.text, /<h3><span class="badge sev-\w+">\w+<\/span> Images are missing alt text<\/h3>/);
    assert.doesNotMatch(res.text, /<script/i);
    const wrong = await call(t.url, rel.replace(/token=[^&]+/, 'token=guess'));
    assert.equal(wrong.status, 404);
    spec.check('GET', '/api/v1/audit/{order_id}/report', wrong);
  });

  it("the ordering account's key fetches the report without the token; anyone else needs it", async () => {
    const html = await call(t.url, `/api/v1/audit/${id}/report`, { key: pro });
    assert.equal(html.status, 200, html.text);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(html.text, /Images are missing alt text/);
    const json = await call(t.url, `/api/v1/audit/${id}/report.json`, { key: pro });
    assert.equal(json.status, 200, json.text);
    spec.check('GET', '/api/v1/audit/{order_id}/report.json', json);
    assert.equal(json.body.order_id, id);

    const stranger = await call(t.url, `/api/v1/audit/${id}/report.json`, {
      key: await t.newKey('A', 'agent'),
    });
    assert.equal(stranger.status, 404);
    const nobody = await call(t.url, `/api/v1/audit/${id}/report.json`);
    assert.equal(nobody.status, 401);
    assert.equal(nobody.body.code, 'unauthorized');
    spec.check('GET', '/api/v1/audit/{order_id}/report.json', nobody);
  });

  it('a client asking for JSON is sent to the .json form', async () => {
    const res = await fetch(reportUrl, { headers: { accept: 'application/json' }, redirect: 'manual' });
    assert.equal(res.status, 303);
    spec.check('GET', '/api/v1/audit/{order_id}/report', {
      status: res.status,
      headers: res.headers,
      body: undefined,
    });
    const followed = await fetch(reportUrl, { headers: { accept: 'application/json' } });
    const body = (await followed.json()) as { order_id: string };
    assert.equal(body.order_id, id);
  });
});

describe('Idempotency-Key', () => {
  it('a retried POST with the same key returns the same order; one order per key, also under a race', async () => {
    const body = { product: 'content_audit', target_url: site.url };
    const first = await order(pro, body, { 'idempotency-key': 'retry-1' });
    const second = await order(pro, body, { 'idempotency-key': 'retry-1' });
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    spec.check('POST', '/api/v1/audit', second);
    assert.equal(second.body.order_id, first.body.order_id);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(first.headers.get('idempotent-replayed'), null);

    // Retries racing each other also end up with one order.
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => order(pro, body, { 'idempotency-key': 'retry-2' })),
    );
    assert.deepEqual(new Set(racing.map((r) => r.status)), new Set([201]));
    assert.equal(new Set(racing.map((r) => r.body.order_id)).size, 1);

    const rows = await t.handle.db
      .selectFrom('audit_orders')
      .select(['id', 'idempotency_key'])
      .where('idempotency_key', 'in', ['retry-1', 'retry-2'])
      .execute();
    assert.equal(rows.length, 2, 'one order per key');
    for (const r of rows) assert.equal((await pollDelivered(pro, r.id)).body.status, 'delivered');
  });

  it('a retry replays its order without probing the target again: a bare host whose https went away', async () => {
    // The first POST finds https on the bare host; by the retry it is gone, so a new probe would
    // pick http:// and the retry read as a different body.
    const server = https.createServer(selfSignedCert(), (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>'),
    );
    await new Promise<void>((r) => server.listen(sparePort, '127.0.0.1', () => r()));
    const body = { product: 'content_audit', target_url: `127.0.0.1:${sparePort}` };
    const first = await order(pro, body, { 'idempotency-key': 'retry-gone' });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.target_url, `https://127.0.0.1:${sparePort}/`);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    const retry = await order(pro, body, { 'idempotency-key': 'retry-gone' });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.order_id, first.body.order_id);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    // Written out as stored, it is the same body too; another target is not.
    const full = await order(
      pro,
      { ...body, target_url: `https://127.0.0.1:${sparePort}/` },
      { 'idempotency-key': 'retry-gone' },
    );
    assert.equal(full.status, 201, full.text);
    const other = await order(pro, { ...body, target_url: site.url }, { 'idempotency-key': 'retry-gone' });
    assert.equal(other.status, 422, other.text);
  });

  it('the same key for a different order is 422, and the key is per account', async () => {
    const res = await order(
      pro,
      { product: 'seo_audit', target_url: site.url },
      { 'idempotency-key': 'retry-1' },
    );
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'idempotency_key_reused');
    spec.check('POST', '/api/v1/audit', res);
    const someoneElse = await order(
      await t.newKey('A', 'agent'),
      { product: 'seo_audit', target_url: site.url },
      { 'idempotency-key': 'retry-1' },
    );
    assert.equal(someoneElse.status, 201);
    assert.equal(someoneElse.headers.get('idempotent-replayed'), null);
  });
});

describe('audit.delivered webhook', () => {
  it('arrives once at the receiver, signed: verifies with the standardwebhooks package', async () => {
    const agent = await t.newKey('A', 'agent');
    const placed = await order(agent, {
      product: 'security_audit',
      target_url: site.url,
      webhook_url: `http://127.0.0.1:${receiverPort}/hook`,
    });
    assert.equal(placed.status, 201, placed.text);
    spec.check('POST', '/api/v1/audit', placed);
    assert.equal(placed.body.webhook_url, `http://127.0.0.1:${receiverPort}/hook`);
    assert.match(placed.body.webhook_secret, /^whsec_/);
    const done = await pollDelivered(agent, placed.body.order_id);
    assert.equal(done.body.status, 'delivered');
    const hook = await waitForHook((h) => h.body.includes(placed.body.order_id));
    assert.equal(hook.headers['x-service-event'], 'audit.delivered');
    assert.equal(hook.headers['content-type'], 'application/json');
    const payload = new Webhook(placed.body.webhook_secret).verify(hook.body, {
      'webhook-id': String(hook.headers['webhook-id']),
      'webhook-timestamp': String(hook.headers['webhook-timestamp']),
      'webhook-signature': String(hook.headers['webhook-signature']),
    });
    assert.deepEqual(payload, {
      event: 'audit.delivered',
      order_id: placed.body.order_id,
      product: 'security_audit',
      target_url: site.url,
      status: 'delivered',
      delivered_at: done.body.delivered_at,
      report_summary: done.body.report_summary,
      report_url: done.body.report_url,
    });
    assert.doesNotMatch(hook.body, /sightline/i, 'no vendor branding in the payload');
    // The receiver can open the report from the payload alone.
    const report = await fetch(done.body.report_url);
    assert.equal(report.status, 200);
    const rows = await deliveries(placed.body.order_id);
    assert.deepEqual(
      rows.map((r) => [r.event, r.status, r.http_status]),
      [['audit.delivered', 'delivered', 200]],
    );
    assert.ok(rows[0]!.latency_ms !== null);
    assert.equal(hooks.filter((h) => h.body.includes(placed.body.order_id)).length, 1);
  });

  it('a receiver that redirects or answers 500 is recorded as failed and not retried', async () => {
    const agent = await t.newKey('A', 'agent');
    const ids: Record<string, string> = {};
    for (const path of ['/redirect', '/error']) {
      const placed = await order(agent, {
        product: 'content_audit',
        target_url: site.url,
        webhook_url: `http://127.0.0.1:${receiverPort}${path}`,
      });
      ids[path] = placed.body.order_id;
    }
    for (const [path, id] of Object.entries(ids)) {
      assert.equal(
        (await pollDelivered(agent, id)).body.status,
        'delivered',
        'a failed webhook does not fail the order',
      );
      await waitFor(async () => (await deliveries(id)).some((d) => d.status !== 'pending'));
      const rows = await deliveries(id);
      assert.equal(rows.length, 1, path);
      assert.equal(rows[0]!.status, 'failed');
      assert.equal(rows[0]!.http_status, path === '/redirect' ? 307 : 500);
      await waitFor(async () => (await jobCount(id)) === 0); // the job is finished, nothing will retry
      assert.equal(hooks.filter((h) => h.body.includes(id)).length, 1, `${path} was called once`);
    }
    assert.equal(
      hooks.filter(
        (h) => h.path === '/hook' && (h.body.includes(ids['/redirect']!) || h.body.includes(ids['/error']!)),
      ).length,
      0,
    );
  });
});

describe('failures', () => {
  it('a target that keeps answering 503 fails after its retries, with the reason', async () => {
    const placed = await order(pro, { product: 'seo_audit', target_url: `${site.origin}/down` });
    const done = await pollDelivered(pro, placed.body.order_id, 60_000);
    assert.equal(done.body.status, 'failed');
    assert.equal(done.body.error.code, 'site_error');
    assert.match(done.body.error.message, /503/);
    assert.equal(done.body.report_url, undefined);
    const row = await t.handle.db
      .selectFrom('audit_orders')
      .select('attempts')
      .where('id', '=', placed.body.order_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.attempts, 2, 'AUDIT_MAX_ATTEMPTS');
  });

  it('a target that does not exist (404) fails at once', async () => {
    const placed = await order(pro, { product: 'seo_audit', target_url: `${site.origin}/gone` });
    const done = await pollDelivered(pro, placed.body.order_id, 60_000);
    assert.equal(done.body.status, 'failed');
    assert.match(done.body.error.message, /404/);
    const row = await t.handle.db
      .selectFrom('audit_orders')
      .select('attempts')
      .where('id', '=', placed.body.order_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.attempts, 1);
  });

  it('an order whose job can no longer run is reported failed instead of waiting forever', async () => {
    const { account, key } = await createAccount(t.handle.db, {
      email: 'stranded@example.test',
      variant: 'A',
      tier: 'pro',
    });
    const id = 'ao_stranded_order_01';
    await t.handle.db
      .insertInto('audit_orders')
      .values({
        id,
        account_id: account.id,
        product: 'seo_audit',
        target_url: site.url,
        report_token: 'tok',
        status: 'generating',
      })
      .execute();
    // As if its last attempt died with its worker: out of attempts, unlocked, never to run again.
    await addJob(
      t.handle.db,
      'generate_audit',
      { orderId: id },
      { jobKey: `audit:${id}`, maxAttempts: 1, runAt: new Date(Date.now() + 3_600_000) },
    );
    await sql`update graphile_worker._private_jobs set attempts = 1, last_error = 'worker died' where key = ${`audit:${id}`}`.execute(
      t.handle.db,
    );
    const res = await call(t.url, `/api/v1/audit/${id}`, { key: key.key });
    spec.check('GET', '/api/v1/audit/{order_id}', res);
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.error.code, 'generation_failed');
    assert.match(res.body.error.message, /after 1 attempt\(s\): worker died/);
  });
});

describe('sightline audits (CLI)', () => {
  before(() => {
    process.env.DATABASE_URL = t.database.url;
    resetConfig();
  });
  after(() => {
    delete process.env.DATABASE_URL;
    resetConfig();
  });
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err, json: () => JSON.parse(out.join('\n')) };
  };

  it('audits list shows orders newest first, filtered by status; show has the report and the webhook attempts', async () => {
    const all = await cli('audits', 'list', '--json');
    assert.equal(all.code, 0, all.err.join('\n'));
    const orders = all.json().orders as { order_id: string; status: string; created_at: string }[];
    assert.ok(orders.length >= 10);
    assert.deepEqual(
      orders.map((o) => o.created_at),
      [...orders.map((o) => o.created_at)].sort().reverse(),
    );
    const failed = (await cli('audits', 'list', '--status', 'failed', '--json')).json().orders as {
      status: string;
    }[];
    assert.ok(failed.length >= 2 && failed.every((o) => o.status === 'failed'));

    const withHook = await t.handle.db
      .selectFrom('webhook_deliveries')
      .select('subject')
      .where('event', '=', 'audit.delivered')
      .executeTakeFirstOrThrow();
    const show = await cli('audits', 'show', withHook.subject!, '--json');
    assert.equal(show.code, 0);
    const view = show.json();
    assert.equal(view.status, 'delivered');
    assert.ok(view.report.pages > 5);
    assert.equal(view.webhook_deliveries.length, 1);
    assert.match(view.report_url, /\/report\?token=/);
    const text = await cli('audits', 'show', withHook.subject!);
    assert.match(text.out.join('\n'), /audit\.delivered/);
    assert.equal((await cli('audits', 'show', 'ao_nope')).code, 1);
    assert.equal((await cli('audits', 'list', '--status', 'lost')).code, 2);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function waitForHook(match: (h: Hook) => boolean): Promise<Hook> {
  await waitFor(async () => hooks.some(match));
  return hooks.find(match)!;
}

const deliveries = (orderId: string) =>
  t.handle.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('subject', '=', orderId)
    .orderBy('created_at')
    .execute();

async function jobCount(orderId: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from graphile_worker.jobs where key = ${`audit:${orderId}`}`.execute(
    t.handle.db,
  );
  return rows[0]!.n;
}
