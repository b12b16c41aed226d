import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { main } from '../../../cli/main.ts';
import { resetConfig } from '../../../shared/config.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// No issued key may be found in the database or in the logs, at the most verbose log level.
let t: TestApi;
before(async () => {
  t = await startTestApi({ LOG_LEVEL: 'trace' });
});
after(() => t.close());

it('keys appear in neither the database nor the logs', async () => {
  const keys = [await t.newKey('A', 'agent'), await t.newKey('B', 'optimisation')];
  // one issued through the operator CLI as well
  process.env.DATABASE_URL = t.database.url;
  resetConfig();
  const out: string[] = [];
  const code = await main(
    ['accounts', 'create', '--email', 'cli@x.test', '--variant', 'A', '--tier', 'pro', '--json'],
    {
      out: (l) => out.push(l),
      err: () => {},
    },
  );
  delete process.env.DATABASE_URL;
  resetConfig();
  assert.equal(code, 0);
  keys.push(JSON.parse(out[0]!).key.key);

  const spec = await SpecChecker.load(t.url);
  for (const key of keys) {
    const me = await call(t.url, '/api/v1/account', { key });
    assert.equal(me.status, 200);
    spec.check('GET', '/api/v1/account', me);
    const status = await call(t.url, '/api/v1/status', { key });
    assert.equal(status.status, 200);
    spec.check('GET', '/api/v1/status', status);
    const bad = await call(t.url, '/api/v1/account', { key: `${key}x` });
    assert.equal(bad.status, 401);
    spec.check('GET', '/api/v1/account', bad);
  }
  await new Promise((r) => setTimeout(r, 100)); // let the log stream flush

  const logs = t.logs.join('');
  assert.ok(logs.includes('"msg":"request"'), 'request lines were logged');
  const tables = ['accounts', 'api_keys', 'subscriptions', 'rate_limit_seconds'];
  let dump = '';
  for (const table of tables) {
    const { rows } = await sql<{
      j: string;
    }>`select row_to_json(x)::text as j from ${sql.table(table)} x`.execute(t.handle.db);
    dump += rows.map((r) => r.j).join('\n');
  }
  for (const key of keys) {
    const body = key.slice(key.indexOf('_', 3) + 1); // the secret part, without the public prefix
    assert.ok(!logs.includes(body.slice(6)), 'key not in logs');
    assert.ok(!dump.includes(body.slice(6)), 'key not in database');
  }
});
