import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../cli/main.ts';
import { getSite, listSites, registerSite, removeSite } from '../../../shared/agent-sites/sites.ts';
import { resetConfig } from '../../../shared/config.ts';
import { AppError } from '../../../shared/errors.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// Registered sites (B): the operator CLI, the domain functions the console calls, and
// GET /api/v1/sites through the real API.

let t: TestApi;
let spec: SpecChecker;

before(async () => {
  t = await startTestApi();
  spec = await SpecChecker.load(t.url);
  process.env.DATABASE_URL = t.database.url;
  resetConfig();
});
after(async () => {
  delete process.env.DATABASE_URL;
  resetConfig();
  await t.close();
});

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, json: () => JSON.parse(out.join('\n')) };
}

const accountOf = async (key: string): Promise<string> =>
  String((await call(t.url, '/api/v1/account', { key })).body.id);

describe('registered sites', () => {
  it('sites add|list|remove through the CLI, listed by GET /api/v1/sites', async () => {
    const key = await t.newKey('B', 'intelligence');
    const account = await accountOf(key);
    const added = await cli(
      'sites',
      'add',
      '--account',
      account,
      '--url',
      'shop.example.com/',
      '--label',
      'Shop',
      '--json',
    );
    assert.equal(added.code, 0, added.err.join('\n'));
    const site = added.json();
    assert.match(site.trackingId, /^site_[0-9A-Za-z]{16}$/);
    assert.match(site.ingestToken, /^sit_[0-9A-Za-z]{40}$/);
    assert.equal(site.url, 'https://shop.example.com/');

    // The token is stored hashed: only its prefix is in the row.
    const row = await t.handle.db
      .selectFrom('agent_sites')
      .selectAll()
      .where('id', '=', String(site.id))
      .executeTakeFirstOrThrow();
    assert.ok(!row.ingest_token_prefix.includes(site.ingestToken));
    assert.equal(row.ingest_token_hash.length, 32);

    const dup = await cli('sites', 'add', '--account', account, '--url', 'https://shop.example.com/');
    assert.equal(dup.code, 1);
    assert.match(dup.err.join('\n'), /site_exists/);

    const listed = await cli('sites', 'list', '--account', account, '--json');
    assert.deepEqual(
      listed.json().map((s: { id: number }) => s.id),
      [site.id],
    );

    const res = await call(t.url, '/api/v1/sites', { key });
    assert.equal(res.status, 200);
    spec.check('GET', '/api/v1/sites', res);
    assert.equal(res.body.sites.length, 1);
    const s = res.body.sites[0];
    assert.equal(s.id, site.id);
    assert.equal(s.trackingId, site.trackingId);
    assert.equal(s.lastScanAt, null);
    assert.equal(s.overallScore, null);
    assert.ok(!JSON.stringify(res.body).includes('sit_'), 'the ingest token is never listed');
    assert.ok(res.headers.get('x-ratelimit-limit'));

    const removed = await cli('sites', 'remove', '--account', account, String(site.id), '--json');
    assert.equal(removed.code, 0, removed.err.join('\n'));
    assert.deepEqual((await call(t.url, '/api/v1/sites', { key })).body.sites, []);
  });

  it("lists the latest agent-readability scan's score and time", async () => {
    const key = await t.newKey('B', 'optimisation');
    const account = await accountOf(key);
    const { site } = await registerSite(t.handle.db, {
      accountId: account,
      url: 'https://scored.example.com/',
    });
    await t.handle.db
      .insertInto('scans')
      .values({
        id: `sc_test${Date.now()}`,
        url: 'https://scored.example.com/',
        domain: 'scored.example.com',
        mode: 'quick',
        status: 'done',
        results: JSON.stringify({ 'agent-readability': { overallScore: 71, grade: 'C' } }),
      })
      .execute();
    await t.handle.db
      .updateTable('scans')
      .set({ finished_at: new Date() })
      .where('url', '=', site.url)
      .execute();
    const res = await call(t.url, '/api/v1/sites', { key });
    assert.equal(res.body.sites[0].overallScore, 71);
    assert.equal(res.body.sites[0].grade, 'C');
    assert.ok(res.body.sites[0].lastScanAt);
  });

  it("domain functions: another account's site is 404; A accounts cannot register", async () => {
    const a = await accountOf(await t.newKey('B', 'intelligence'));
    const b = await accountOf(await t.newKey('B', 'intelligence'));
    const { site } = await registerSite(t.handle.db, { accountId: a, url: 'https://mine.example.com' });
    await assert.rejects(getSite(t.handle.db, b, site.id), (e) => e instanceof AppError && e.status === 404);
    await assert.rejects(
      removeSite(t.handle.db, b, site.id),
      (e) => e instanceof AppError && e.status === 404,
    );
    assert.equal((await getSite(t.handle.db, a, site.tracking_id)).id, site.id);
    assert.equal((await listSites(t.handle.db, b)).length, 0);
    const aAccount = await accountOf(await t.newKey('A', 'agent'));
    await assert.rejects(
      registerSite(t.handle.db, { accountId: aAccount, url: 'https://x.example.com' }),
      (e) => e instanceof AppError && e.code === 'variant_mismatch',
    );
  });

  it('GET /api/v1/sites refuses A keys (403 variant_mismatch) and missing keys (401)', async () => {
    const res = await call(t.url, '/api/v1/sites', { key: await t.newKey('A', 'agent') });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'variant_mismatch');
    assert.equal((await call(t.url, '/api/v1/sites')).status, 401);
  });
});
