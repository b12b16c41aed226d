import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { pollUntilDone, startTestStack, type TestStack } from '../../helpers/stack.ts';

// On-demand citability scans of a registered B site: a corpus site served on 127.0.0.1, scanned
// by the real worker (full mode: Chromium and Lighthouse), through to GET …/citability.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SITES = path.join(CORPUS, 'static-sites');
const present = fs.existsSync(SITES);

let server: FixtureServer;
let t: TestStack;
let spec: SpecChecker;
let key: string;
let site: AgentSite;

before(async () => {
  if (!present) return;
  server = await startFixtureServer({ root: SITES });
  t = await startTestStack({ SCAN_ALLOW_HOSTS: `127.0.0.1:${server.port}` });
  spec = await SpecChecker.load(t.url);
  key = await t.newKey('B', 'intelligence', { rateLimit: 100_000 }); // polling a full scan
  const accountId = String((await call(t.url, '/api/v1/account', { key })).body.id);
  ({ site } = await registerSite(t.handle.db, {
    accountId,
    url: `${server.origin}/underscorejs-org/index.html`,
    label: 'Underscore docs',
  }));
});
after(async () => {
  await t?.close();
  await server?.close();
});

describe('registered-site citability on demand', {
  skip: present ? false : `corpus not found at ${SITES}`,
}, () => {
  it('GET …/citability is 404 before the first scan', async () => {
    const res = await call(t.url, `/api/v1/sites/${site.id}/citability`, { key });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'not_found');
    assert.match(res.body.detail, /citability\/scan/);
  });

  it('POST …/citability/scan runs a full scan as a job, one pending per site, through to GET …/citability', async () => {
    const first = await call(t.url, `/api/v1/sites/${site.id}/citability/scan`, {
      method: 'POST',
      key,
      body: { wait: 0 },
    });
    assert.equal(first.status, 202, first.text);
    spec.check('POST', '/api/v1/sites/{id}/citability/scan', first);
    assert.equal(first.body.mode, 'full');
    assert.equal(first.body.siteId, Number(site.id));
    const location = first.headers.get('location')!;
    assert.equal(location, `/api/v1/sites/${site.id}/citability/scans/${first.body.id}`);

    // While it is pending, another request (by tracking id too) joins it instead of starting one.
    const second = await call(t.url, `/api/v1/sites/${site.tracking_id}/citability/scan`, {
      method: 'POST',
      key,
      body: { wait: 0 },
    });
    assert.equal(second.status, 202, second.text);
    assert.equal(second.body.id, first.body.id);
    const rows = await t.handle.db
      .selectFrom('b_site_scans')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.trigger, 'on_demand');

    const done = await pollUntilDone(t.url, location, key, 240_000);
    assert.equal(done.status, 200);
    const result = (await done.json()) as { scanId: string };
    spec.check('GET', '/api/v1/sites/{id}/citability/scans/{scanId}', {
      status: 200,
      headers: done.headers,
      body: result,
    });
    assert.equal(result.scanId, first.body.id);

    const latest = await call(t.url, `/api/v1/sites/${site.id}/citability`, { key });
    assert.equal(latest.status, 200, latest.text);
    spec.check('GET', '/api/v1/sites/{id}/citability', latest);
    const b = latest.body;
    assert.equal(b.siteId, Number(site.id));
    assert.equal(b.scanId, first.body.id);
    assert.equal(b.mode, 'full');
    assert.equal(b.url, site.url);
    assert.equal(b.methodologyVersion, '2.0.1');
    assert.match(b.grade, /^[A-F]$/);
    assert.deepEqual(
      b.dimensions.map((d: { id: string; weight: number }) => [d.id, d.weight]),
      [
        ['structure', 0.25],
        ['citability', 0.25],
        ['discoverability', 0.15],
        ['agent_interface', 0.2],
        ['transactability', 0.15],
      ],
    );
    for (const d of b.dimensions) {
      assert.ok(Array.isArray(d.issues) && Array.isArray(d.passes), d.id);
      assert.ok(d.issues.length + d.passes.length > 0, `${d.id} says what it found`);
    }
    // The corpus profile: the underscore docs have no robots.txt and no llms.txt.
    const discoverability = b.dimensions.find((d: { id: string }) => d.id === 'discoverability');
    assert.match(discoverability.issues.join('\n'), /llms\.txt/i);
    assert.deepEqual(
      b.issues,
      b.dimensions.flatMap((d: { issues: string[] }) => d.issues),
    );
    assert.deepEqual(
      b.researchSignals.map((r: { id: string }) => r.id),
      ['agent_correlation'],
    );

    // The site list shows the same scan.
    const list = await call(t.url, '/api/v1/sites', { key });
    const listed = list.body.sites.find((s: { id: number }) => s.id === Number(site.id));
    assert.equal(listed.overallScore, b.overallScore);
    assert.equal(listed.lastScanAt, b.scannedAt);

    // Once it is done, a new request starts a new scan.
    const again = await call(t.url, `/api/v1/sites/${site.id}/citability/scan`, {
      method: 'POST',
      key,
      body: { wait: 0, mode: 'quick' },
    });
    assert.ok(again.status === 202 || again.status === 200, again.text);
    assert.notEqual(again.status === 202 ? again.body.id : again.body.scanId, first.body.id);
  });

  it("another account's site is 404, and so is a scan id of another URL", async () => {
    const other = await t.newKey('B', 'optimisation');
    for (const [method, p] of [
      ['GET', `/api/v1/sites/${site.id}/citability`],
      ['POST', `/api/v1/sites/${site.id}/citability/scan`],
    ] as const) {
      const res = await call(t.url, p, { method, key: other, body: method === 'POST' ? {} : undefined });
      assert.equal(res.status, 404, `${method} ${p}`);
    }
    const foreign = await call(t.url, `/api/v1/sites/${site.id}/citability/scans/sc_AAAAAAAAAAAAAAAA`, {
      key,
    });
    assert.equal(foreign.status, 404);
  });
});
