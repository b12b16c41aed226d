import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { hashStatusToken } from '../../../shared/accounts/status-token.ts';
import { dropDatabase, ensureDatabase } from '../../../shared/db/connect.ts';
import { listMigrations } from '../../../shared/db/migrate.ts';
import { createDb } from '../../../shared/db/pool.ts';
import { statusPageData } from '../../../shared/monitoring/sites.ts';
import { testAdminUrl } from '../../helpers/db.ts';

// sql/009 hashes the status tokens already handed out in clear: a database migrated up to 008
// with a subscription and its token, then 009 applied: the old link still opens the page, and
// the clear token is gone.

const name = `sightline_t_mig_${randomBytes(4).toString('hex')}`;
let url: string;

before(async () => {
  const admin = testAdminUrl();
  await ensureDatabase(admin, name);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  url = u.toString();
});
after(() => dropDatabase(testAdminUrl(), name));

async function apply(client: pg.Client, upTo: number, from = 1) {
  for (const m of listMigrations()) {
    if (m.id < from || m.id > upTo) continue;
    await client.query('begin');
    await client.query(fs.readFileSync(m.file, 'utf8'));
    await client.query('commit');
  }
}

it('009 replaces clear status tokens by their SHA-256 and prefix; old links keep working', async () => {
  const ids = listMigrations().map((m) => m.id);
  const hashing = listMigrations().find((m) => m.name === 'status_token_hash')!;
  assert.ok(hashing, 'the migration exists');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const token = randomBytes(18).toString('base64url');
  try {
    await apply(client, hashing.id - 1);
    const { rows } = await client.query<{ id: string }>(
      `insert into accounts (email, variant, tier) values ('old@x.test', 'A', 'free') returning id`,
    );
    await client.query(
      `insert into subscriptions (account_id, plan, site_quota, scan_frequency, prompt_quota, status_token)
       values ($1, 'agency', 25, 'daily', 20, $2)`,
      [rows[0]!.id, token],
    );
    await apply(client, Math.max(...ids), hashing.id);

    const cols = await client.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_name = 'subscriptions'`,
    );
    const names = cols.rows.map((c) => c.column_name);
    assert.ok(!names.includes('status_token'), 'the clear column is gone');
    const sub = await client.query<{ status_token_hash: Buffer; status_token_prefix: string }>(
      'select status_token_hash, status_token_prefix from subscriptions',
    );
    assert.deepEqual(sub.rows[0]!.status_token_hash, hashStatusToken(token));
    assert.equal(sub.rows[0]!.status_token_prefix, token.slice(0, 6));
  } finally {
    await client.end();
  }
  const h = createDb(url, { max: 1 });
  try {
    const data = await statusPageData(h.db, token);
    assert.ok(data, 'the link handed out before the migration still opens the status page');
    assert.equal(await statusPageData(h.db, `${token.slice(0, -1)}x`), undefined);
  } finally {
    await h.close();
  }
});
