import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { main } from '../../cli/main.ts';
import { resetConfig } from '../../shared/config.ts';
import { call, startTestApi, type TestApi } from '../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

let t: TestApi;
let site: FixtureServer;
before(async () => {
  site = await startFixtureServer({ routes: { '/': (_q, r) => r.end('ok') } });
  t = await startTestApi({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
  process.env.DATABASE_URL = t.database.url;
  resetConfig();
});
after(async () => {
  delete process.env.DATABASE_URL;
  resetConfig();
  await t.close();
  await site.close();
});

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, json: () => JSON.parse(out.join('\n')) };
}

describe('sightline CLI', () => {
  it('accounts create prints the account and a working key; --plan sets a subscription', async () => {
    const r = await cli(
      'accounts',
      'create',
      '--email',
      'ops@x.test',
      '--variant',
      'A',
      '--tier',
      'agent',
      '--plan',
      'growth',
      '--json',
    );
    assert.equal(r.code, 0);
    const { account, key } = r.json();
    assert.equal(account.variant, 'A');
    assert.equal(account.plan, 'growth');
    assert.match(key.key, /^sl_live_[0-9A-Za-z]{40}$/);
    const me = await call(t.url, '/api/v1/account', { key: key.key });
    assert.equal(me.status, 200);
    assert.equal(me.body.plan, 'growth');
    assert.equal(me.body.id, account.id);
    // The status page link is shown once, beside the key (only its hash is stored).
    const { statusToken, statusPageUrl } = r.json();
    assert.ok(statusPageUrl.endsWith(`/status/${statusToken}`));
    assert.equal((await fetch(`${t.url}/status/${statusToken}`)).status, 200);
  });

  it('keys create adds a key; keys revoke makes it answer 401', async () => {
    const acct = (
      await cli(
        'accounts',
        'create',
        '--email',
        'b@x.test',
        '--variant',
        'B',
        '--tier',
        'intelligence',
        '--json',
      )
    ).json();
    assert.match(acct.key.key, /^ar_[0-9A-Za-z]{40}$/);
    assert.equal(acct.statusPageUrl, undefined, 'no plan, no status page');
    const created = await cli('keys', 'create', '--account', String(acct.account.id), '--json');
    assert.equal(created.code, 0);
    const second = created.json();
    assert.equal((await call(t.url, '/api/v1/account', { key: second.key })).status, 200);
    const revoked = await cli('keys', 'revoke', second.prefix, '--json');
    assert.deepEqual(revoked.json(), { prefix: second.prefix, revoked: 1 });
    assert.equal((await call(t.url, '/api/v1/account', { key: second.key })).status, 401);
    assert.equal(
      (await call(t.url, '/api/v1/account', { key: acct.key.key })).status,
      200,
      'the other key still works',
    );
  });

  it('accounts list finds an account by part of its email; accounts show gives its keys and sites', async () => {
    const a = (
      await cli(
        'accounts',
        'create',
        '--email',
        'Owner@Find-Me.test',
        '--variant',
        'A',
        '--tier',
        'pro',
        '--plan',
        'growth',
        '--json',
      )
    ).json();
    await cli(
      'accounts',
      'create',
      '--email',
      'other@elsewhere.test',
      '--variant',
      'B',
      '--tier',
      'free',
      '--json',
    );
    const added = await call(t.url, '/api/v1/monitor/sites', {
      key: a.key.key,
      method: 'POST',
      body: { url: `${site.origin}/`, label: 'Shop' },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));

    const listed = await cli('accounts', 'list', '--email', 'find-me', '--json');
    assert.equal(listed.code, 0);
    assert.deepEqual(
      listed.json().map((r: { email: string; plan: string }) => [r.email, r.plan]),
      [['Owner@Find-Me.test', 'growth']],
    );
    // LIKE's wildcards in the filter are literal: '%' matches no address here.
    assert.deepEqual((await cli('accounts', 'list', '--email', '%', '--json')).json(), []);

    const shown = await cli('accounts', 'show', String(a.account.id), '--json');
    assert.equal(shown.code, 0);
    const details = shown.json();
    assert.equal(details.email, 'Owner@Find-Me.test');
    assert.equal(details.tier, 'pro');
    assert.deepEqual(
      details.keys.map((k: { prefix: string }) => k.prefix),
      [a.key.prefix],
    );
    assert.equal(details.keys[0].revokedAt, null);
    assert.deepEqual(
      details.monitoredSites.map((s: { url: string; label: string }) => [s.url, s.label]),
      [[`${site.origin}/`, 'Shop']],
    );
    const text = await cli('accounts', 'show', String(a.account.id));
    assert.match(text.out.join('\n'), /Owner@Find-Me\.test[\s\S]*monitored sites \(1\)/);
    assert.equal((await cli('accounts', 'show', '999999')).code, 1);
    assert.equal((await cli('accounts', 'show')).code, 2);

    const sub = await cli('subscriptions', 'show', '--account', String(a.account.id));
    assert.match(sub.out.join('\n'), /\(Owner@Find-Me\.test\): growth/);
  });

  it('migrate --json reports that nothing is left to apply on a migrated database', async () => {
    const r = await cli('migrate', '--json');
    assert.equal(r.code, 0);
    assert.deepEqual(r.json(), { applied: [] });
  });

  it('refuses bad input with a usage message and exit code 2', async () => {
    const r = await cli('accounts', 'create', '--email', 'c@x.test', '--variant', 'B', '--tier', 'pro');
    assert.equal(r.code, 2);
    assert.match(r.err.join('\n'), /not a variant B tier/);
    assert.equal((await cli('accounts', 'create', '--variant', 'A')).code, 2);
    assert.equal((await cli('frobnicate')).code, 2);
  });
});
