import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { scanJobKey } from '../../../shared/scans/jobs.ts';
import { requestScanIn, scanTopic } from '../../../shared/scans/scans.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { pollUntilDone, startTestStack, type TestStack } from '../../helpers/stack.ts';

// The scan path end to end in quick mode: API -> job -> worker gathers the fixture site over
// HTTP -> checks -> models -> stored -> presented in the A and B shapes.

let site: FixtureServer;
let canaryHits = 0;
let canary: net.Server;
let canaryPort: number;
let t: TestStack;
let spec: SpecChecker;
// The /held page answers only when the test lets it go, so a scan can be watched mid-fetch.
let releaseHeld: () => void = () => {};
const held = new Promise<void>((r) => {
  releaseHeld = r;
});

before(async () => {
  canary = net.createServer((s) => {
    canaryHits++;
    s.destroy();
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', () => r()));
  canaryPort = (canary.address() as net.AddressInfo).port;
  site = await startFixtureServer({
    root: path.resolve('test/fixtures/sites/quick-site'),
    routes: {
      '/gone': (_req, res) => {
        res
          .writeHead(404, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><html lang="en"><head><title>Page not found</title></head><body><h1>Not found</h1></body></html>',
          );
      },
      '/held': (_req, res) => {
        void held.then(() =>
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              '<!doctype html><html lang="en"><head><title>Held</title></head><body><h1>Held</h1></body></html>',
            ),
        );
      },
      '/to-canary': (_req, res) => {
        res.writeHead(302, { location: `http://127.0.0.1:${canaryPort}/` }).end();
      },
      '/canary-assets': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><html lang="en"><head><title>x</title><script src="http://127.0.0.1:${canaryPort}/x.js"></script></head><body><img src="http://127.0.0.1:${canaryPort}/i.png" alt="i"><iframe src="http://127.0.0.1:${canaryPort}/"></iframe></body></html>`,
          );
      },
    },
  });
  // Only the fixture's host:port is opened: the canary (another port) stays forbidden.
  t = await startTestStack({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
  spec = await SpecChecker.load(t.url);
});
after(async () => {
  await t.close();
  await site.close();
  canary.close();
});

describe('GET /api/v1/scan (A)', () => {
  it('scans a site in quick mode: 7 dimensions with issues and passes, documented shape', async () => {
    const key = await t.newKey('A', 'free');
    const res = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(site.origin)}&mode=quick&wait=60`, {
      key,
    });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/scan', res);
    assert.equal(res.body.url, `${site.origin}/`);
    assert.equal(res.body.domain, '127.0.0.1');
    assert.deepEqual(
      res.body.dimensions.map((d: { id: string }) => d.id),
      ['seo', 'speed', 'security', 'accessibility', 'mobile', 'content', 'conversion'],
    );
    for (const d of res.body.dimensions) {
      assert.ok(d.issues.length + d.passes.length > 0, `${d.id} has findings`);
    }
    assert.ok(res.body.overallScore > 0 && res.body.overallScore <= 100);
    assert.equal(res.body.recommendation, undefined);
    // plain http on a test server: security must say so
    const security = res.body.dimensions.find((d: { id: string }) => d.id === 'security');
    assert.ok(
      security.issues.some((i: string) => /https/i.test(i)),
      security.issues.join('\n'),
    );
  });

  it('scans a bare host:port over http when it does not answer https there', async () => {
    const key = await t.newKey('A', 'free');
    const res = await call(t.url, `/api/v1/scan?url=127.0.0.1:${site.port}/?from=bare&mode=quick&wait=60`, {
      key,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.url, `${site.origin}/?from=bare`);
  });

  it('serves the same URL and mode from the stored result within the TTL, and adds a recommendation', async () => {
    const key = await t.newKey('A', 'pro');
    const a = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(site.origin)}&mode=quick&wait=60`, {
      key,
    });
    const b = await call(
      t.url,
      `/api/v1/scan?url=${encodeURIComponent(site.origin)}&mode=quick&include_recommendation=true`,
      { key },
    );
    assert.equal(a.body.scanId, b.body.scanId);
    const rec = b.body.recommendation;
    assert.ok(rec, 'recommendation present');
    assert.match(rec.stripeLink, /^https?:\/\//);
    assert.ok(Number.isInteger(rec.bundlePrice) && rec.bundlePrice > 0);
    assert.ok(rec.products.length === 3 || rec.products.length === 7);
    spec.check('GET', '/api/v1/scan', b);
  });

  it('answers 202 with a Location when the scan outlasts the wait, then the result on polling', async () => {
    const key = await t.newKey('A', 'agent');
    // (not /docs/: that folder has no index and answers 404, which is no page to score)
    const target = `${site.origin}/index.html`;
    const res = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(target)}&mode=quick&wait=0`, {
      key,
    });
    assert.equal(res.status, 202);
    spec.check('GET', '/api/v1/scan', res);
    const location = res.headers.get('location')!;
    assert.match(location, /^\/api\/v1\/scans\/sc_/);
    const keyless = await call(t.url, location);
    assert.equal(keyless.status, 401, 'the A view needs a key');
    const done = await pollUntilDone(t.url, location, key);
    assert.equal(done.status, 200);
    const body = (await done.json()) as { url: string; dimensions: unknown[] };
    assert.equal(body.url, target);
    assert.equal(body.dimensions.length, 7);
  });

  it('while the job runs, polling shows the real phase and the time so far', async () => {
    const key = await t.newKey('A', 'agent');
    const res = await call(
      t.url,
      `/api/v1/scan?url=${encodeURIComponent(`${site.origin}/held`)}&mode=quick&wait=0`,
      {
        key,
      },
    );
    assert.equal(res.status, 202);
    const location = res.headers.get('location')!;
    const seen: { status: string; phase: string | null; elapsedMs: number }[] = [];
    for (;;) {
      const poll = await call(t.url, location, { key });
      assert.equal(poll.status, 202);
      spec.check('GET', '/api/v1/scans/{id}', poll);
      seen.push(poll.body);
      if (poll.body.phase === 'fetch') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const last = seen.at(-1)!;
    assert.equal(last.status, 'running');
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.elapsedMs >= seen[i - 1]!.elapsedMs);
    const again = await call(t.url, location, { key });
    assert.equal(again.body.phase, 'fetch', 'the page is still being fetched');
    assert.ok(again.body.elapsedMs >= last.elapsedMs);
    releaseHeld();
    const done = await pollUntilDone(t.url, location, key);
    assert.equal(done.status, 200);
  });

  it('a B key is refused (403 variant_mismatch); no key is 401', async () => {
    const b = await t.newKey('B', 'optimisation');
    const r1 = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(site.origin)}`, { key: b });
    assert.equal(r1.status, 403);
    assert.equal(r1.body.code, 'variant_mismatch');
    const r2 = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(site.origin)}`);
    assert.equal(r2.status, 401);
  });
});

describe('a scan whose job can no longer run', () => {
  // What a worker SIGKILLed on the scan's last attempt leaves: the row `running`, the job out of
  // attempts and still locked by the dead worker (reap_dead_workers unlocks it within a minute).
  // Made in the scan's own transaction, so the test's worker never gets to run the job.
  const strand = (url: string) =>
    t.handle.db.transaction().execute(async (trx) => {
      const scan = await requestScanIn(trx, t.api.services.config, {
        url: new URL(url),
        mode: 'quick',
        accountId: null,
      });
      await sql`update scans set status = 'running', phase = 'fetch', started_at = now() where id = ${scan.id}`.execute(
        trx,
      );
      await sql`update graphile_worker._private_jobs
                   set attempts = max_attempts, locked_by = 'dead-worker', locked_at = now(),
                       last_error = 'Error: connect ECONNREFUSED 10.1.2.3:5432'
                 where key = ${scanJobKey(scan.id)}`.execute(trx);
      return scan.id;
    });
  const release = (id: string) =>
    sql`update graphile_worker._private_jobs set locked_by = null, locked_at = null where key = ${scanJobKey(id)}`.execute(
      t.handle.db,
    );
  const rowOf = (id: string) =>
    t.handle.db
      .selectFrom('scans')
      .select(['status', 'error'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('is joined while a worker holds its job; once freed, a new request starts a fresh scan and the dead one polls as failed', async () => {
    const key = await t.newKey('A', 'agent');
    const url = `${site.origin}/?stranded=1`;
    const dead = await strand(url);
    const path = `/api/v1/scan?url=${encodeURIComponent(url)}&mode=quick`;

    const joined = await call(t.url, `${path}&wait=0`, { key });
    assert.equal(joined.status, 202, joined.text);
    assert.equal(joined.body.id, dead, 'a job held by a worker may still finish: joined');

    await release(dead);
    const fresh = await call(t.url, `${path}&wait=30`, { key });
    assert.equal(fresh.status, 200, fresh.text);
    assert.notEqual(fresh.body.scanId, dead, 'a fresh scan, not the dead one');

    const poll = await call(t.url, `/api/v1/scans/${dead}`, { key });
    assert.equal(poll.status, 422, poll.text);
    spec.check('GET', '/api/v1/scans/{id}', poll);
    assert.equal(poll.body.code, 'scan_failed');
    assert.match(poll.body.detail, /could not be completed/);
    assert.doesNotMatch(poll.text, /ECONNREFUSED|10\.1\.2\.3|graphile/, 'nothing internal');
    assert.equal((await rowOf(dead)).status, 'failed');
  });

  it('a poll settles it (job gone too) and wakes whoever waits on it; a scan with attempts left is not touched', async () => {
    const key = await t.newKey('A', 'agent');
    const dead = await strand(`${site.origin}/?stranded=2`);
    await sql`delete from graphile_worker._private_jobs where key = ${scanJobKey(dead)}`.execute(t.handle.db);
    // A request that joined the scan earlier, waiting on its topic (its own re-check is every 5 s).
    const waiting = t.api.services.events.waitFor(
      scanTopic(dead),
      async () => ((await rowOf(dead)).status === 'failed' ? Date.now() : undefined),
      20_000,
    );
    await new Promise((r) => setTimeout(r, 200));
    const polledAt = Date.now();
    const poll = await call(t.url, `/api/v1/scans/${dead}?view=b`);
    assert.equal(poll.status, 422, poll.text);
    assert.equal(poll.body.code, 'scan_failed');
    const wokeAt = await waiting;
    assert.ok(wokeAt && wokeAt - polledAt < 2500, 'woken by the notification, not its periodic re-check');

    // Between attempts (a retry is due) the job can still run: the scan stays pending.
    const pending = await strand(`${site.origin}/?stranded=3`);
    await sql`update graphile_worker._private_jobs set attempts = 1, locked_by = null, locked_at = null,
                 run_at = now() + interval '1 hour' where key = ${scanJobKey(pending)}`.execute(t.handle.db);
    const still = await call(t.url, `/api/v1/scans/${pending}`, { key });
    assert.equal(still.status, 202, still.text);
    assert.equal((await rowOf(pending)).status, 'running');
  });
});

describe('POST /api/public/scan (B)', () => {
  it('returns the five weighted dimensions, the grade and the research signal', async () => {
    const res = await call(t.url, '/api/public/scan', {
      method: 'POST',
      body: { url: site.origin, mode: 'quick' },
    });
    assert.equal(res.status, 200, res.text);
    spec.check('POST', '/api/public/scan', res);
    assert.equal(res.body.methodologyVersion, '2.0.1');
    assert.match(res.body.grade, /^[A-F]$/);
    assert.deepEqual(
      res.body.dimensions.map((d: { id: string; weight: number }) => [d.id, d.weight]),
      [
        ['structure', 0.25],
        ['citability', 0.25],
        ['discoverability', 0.15],
        ['agent_interface', 0.2],
        ['transactability', 0.15],
      ],
    );
    const composite = Math.round(
      res.body.dimensions.reduce(
        (s: number, d: { weight: number; score: number }) => s + d.weight * d.score,
        0,
      ),
    );
    assert.ok(
      Math.abs(composite - res.body.overallScore) <= 1,
      `composite ${composite} vs ${res.body.overallScore}`,
    );
    assert.deepEqual(res.body.researchSignals, [{ id: 'agent_correlation', weight: 0, score: null }]);
  });

  it('the keyless scan cannot be polled in the paid A shape', async () => {
    const res = await call(t.url, '/api/public/scan', {
      method: 'POST',
      body: { url: site.origin, mode: 'quick' },
    });
    const id = res.body.scanId;
    const keyless = await call(t.url, `/api/v1/scans/${id}?view=a&include_recommendation=true`);
    assert.equal(keyless.status, 401);
    spec.check('GET', '/api/v1/scans/{id}', keyless);
    const bKey = await call(t.url, `/api/v1/scans/${id}?view=a`, {
      key: await t.newKey('B', 'optimisation'),
    });
    assert.equal(bKey.status, 403);
    assert.equal(bKey.body.code, 'variant_mismatch');
    const aKey = await call(t.url, `/api/v1/scans/${id}?view=a`, { key: await t.newKey('A', 'free') });
    assert.equal(aKey.status, 200);
    spec.check('GET', '/api/v1/scans/{id}', aKey);
    const b = await call(t.url, `/api/v1/scans/${id}?view=b`);
    assert.equal(b.status, 200);
    assert.deepEqual(b.body, res.body);
  });
});

describe('URL safety through the API', () => {
  const refused = [
    'http://169.254.169.254/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::1]/',
    'HTTP://10.0.0.1/',
    'file:///etc/passwd',
    'http://user@127.0.0.1/',
  ];
  it('refuses private, loopback, metadata, non-http and credentialed targets with 400 url_not_allowed', async () => {
    const key = await t.newKey('A', 'agent');
    for (const target of [...refused, `http://127.0.0.1:${canaryPort}/`]) {
      const res = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(target)}&mode=quick`, { key });
      assert.equal(res.status, 400, `${target}: ${res.text}`);
      assert.equal(res.body.code, 'url_not_allowed', target);
      spec.check('GET', '/api/v1/scan', res);
    }
    assert.equal(canaryHits, 0);
  });

  it('a page that redirects to a forbidden address fails the scan with url_not_allowed; the canary sees nothing', async () => {
    const key = await t.newKey('A', 'agent');
    const res = await call(
      t.url,
      `/api/v1/scan?url=${encodeURIComponent(`${site.origin}/to-canary`)}&mode=quick&wait=60`,
      { key },
    );
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'url_not_allowed');
    assert.equal(canaryHits, 0);
  });

  it("a page's script, image and iframe pointing at a forbidden address are never fetched", async () => {
    const key = await t.newKey('A', 'agent');
    const res = await call(
      t.url,
      `/api/v1/scan?url=${encodeURIComponent(`${site.origin}/canary-assets`)}&mode=quick&wait=60`,
      { key },
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(canaryHits, 0);
  });
});

describe('free tools', () => {
  it('a page answering 404 is a 422 target_error_status for the page views, not a score; llms.txt still answers', async () => {
    const key = await t.newKey('A', 'free');
    const url = `${site.origin}/gone`;
    const a = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(url)}&mode=quick&wait=60`, { key });
    assert.equal(a.status, 422, a.text);
    assert.equal(a.body.code, 'target_error_status');
    assert.equal(a.body.httpStatus, 404);
    assert.ok(a.body.scanId);
    const b = await call(t.url, '/api/public/scan', { method: 'POST', body: { url, mode: 'quick' } });
    assert.equal(b.status, 422, b.text);
    assert.equal(b.body.code, 'target_error_status');
    const poll = await call(t.url, `/api/v1/scans/${a.body.scanId}?view=llmstxt`);
    assert.equal(poll.status, 200, poll.text);
  });

  it('POST /api/tools/llmstxt scores the fixture llms.txt; the sixth call in an hour is 429', async () => {
    const statuses: number[] = [];
    let first: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 6; i++) {
      const res = await call(t.url, '/api/tools/llmstxt', { method: 'POST', body: { url: site.origin } });
      statuses.push(res.status);
      first ??= res;
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    spec.check('POST', '/api/tools/llmstxt', first!);
    assert.equal(first!.body.present, true);
    assert.equal(first!.body.valid, true);
    assert.ok(first!.body.linkCount > 0);
  });

  it('POST /api/tools/citability returns the five citability dimensions', async () => {
    const res = await call(t.url, '/api/tools/citability', { method: 'POST', body: { url: site.origin } });
    assert.equal(res.status, 200, res.text);
    spec.check('POST', '/api/tools/citability', res);
    assert.deepEqual(Object.keys(res.body.dimensions).sort(), [
      'answerBlockQuality',
      'selfContainment',
      'statisticalDensity',
      'structuralReadability',
      'uniquenessSignals',
    ]);
    assert.equal(typeof res.body.optimalWordCount, 'boolean');
  });
});
