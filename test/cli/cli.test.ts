import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { main } from '../../cli/main.ts';
import { resetConfig } from '../../shared/config.ts';
import { call, startTestApi, type TestApi } from '../helpers/api.ts';

let t: TestApi;
before(async () => {
  t = await startTestApi();
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
